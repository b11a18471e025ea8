import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate, ValidationSeverity, type ValidatorSettings } from 'dockerfile-utils';
import { isPinnedImage } from './image-reference';

/**
 * A Dockerfile linter: dockerfile-utils' validator (the diagnostics of the VS Code Docker
 * extension: syntax, arguments, flags, ports, durations, stage names, instruction casing, …)
 * with every rule at error, and a few best-practice rules on dockerfile-ast's syntax tree, named
 * after hadolint's. Each finding is `line N: message`. Used by deploy-files.spec.ts.
 */

const EVERY_RULE_AN_ERROR: Required<ValidatorSettings> = {
  deprecatedMaintainer: ValidationSeverity.ERROR,
  directiveCasing: ValidationSeverity.ERROR,
  emptyContinuationLine: ValidationSeverity.ERROR,
  instructionCasing: ValidationSeverity.ERROR,
  instructionCmdMultiple: ValidationSeverity.ERROR,
  instructionEntrypointMultiple: ValidationSeverity.ERROR,
  instructionHealthcheckMultiple: ValidationSeverity.ERROR,
  instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
  instructionWorkdirRelative: ValidationSeverity.ERROR,
};

export function dockerfileProblems(text: string): string[] {
  const problems = validate(text, EVERY_RULE_AN_ERROR).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
  const dockerfile = DockerfileParser.parse(text);
  const at = (i: Instruction, message: string) => problems.push(`line ${i.getRange().start.line + 1}: ${message}`);
  const stages: string[] = [];

  for (const from of dockerfile.getFROMs()) {
    // Build arguments expanded with their defaults, as `docker build` without --build-arg does.
    const image = from.getExpandedArguments()[0]?.getValue() ?? '';
    if (!stages.includes(image) && !isPinnedImage(image))
      at(from, `DL3006/DL3007: FROM ${image}: pin the base image to a tag other than latest, or a digest`);
    const stage = from.getBuildStage();
    if (stage) stages.push(stage);
  }

  for (const i of dockerfile.getInstructions()) {
    const keyword = i.getKeyword();
    const args = i.getArgumentsContent() ?? '';
    if (keyword === 'ADD') at(i, 'DL3020: use COPY, not ADD, for files and folders');
    if (keyword === 'RUN' && /\bapt-get\s+install\b/.test(args)) {
      if (!/\s(-y|--yes|--assume-yes)\b/.test(args)) at(i, 'DL3014: apt-get install without -y');
      if (!/--no-install-recommends\b/.test(args)) at(i, 'DL3015: apt-get install without --no-install-recommends');
      if (!/rm -rf \/var\/lib\/apt\/lists/.test(args)) at(i, 'DL3009: remove /var/lib/apt/lists in the RUN that fills it');
    }
    if (keyword === 'RUN' && /\bapt-get\s+(dist-)?upgrade\b/.test(args)) at(i, 'DL3005: no apt-get upgrade: rebuild on a newer base image');
    // Shell form runs `/bin/sh -c`: without `exec` the shell is PID 1 and the app never sees SIGTERM.
    if ((keyword === 'CMD' || keyword === 'ENTRYPOINT') && !args.trimStart().startsWith('[') && !/^\s*exec\s/.test(args))
      at(i, `signals: ${keyword} in shell form must start with exec, so the process receives SIGTERM`);
  }

  const last = dockerfile.getFROMs().at(-1);
  const users = dockerfile.getInstructions().filter((i) => i.getKeyword() === 'USER' && last && i.getRange().start.line > last.getRange().start.line);
  const user = users.at(-1)?.getArgumentsContent()?.split(':')[0];
  if (!user || user === 'root' || user === '0') problems.push('DL3002: the final stage must switch to a user other than root');
  return problems;
}
