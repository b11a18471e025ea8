import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The links between the documentation's pages, checked as GitHub renders them: a relative link
 * must name a file or folder of the repository, and a `#fragment` a heading (or an explicit
 * `<a id>`/`<a name>`) of the page it points to, by GitHub's anchor rules. Links in code
 * (fenced blocks, code spans) and to other sites are left alone.
 */

export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

export interface BrokenLink extends MarkdownLink {
  reason: string;
}

/**
 * GitHub's anchor of a heading's text (its rendered text: code spans keep their content, link
 * syntax and emphasis markers go): lower case, every character but letters, marks, digits,
 * connector punctuation (`_`), spaces and hyphens dropped, each space a hyphen. `seen` numbers
 * repeated anchors the way GitHub does (`-1`, `-2`, …).
 */
export function githubAnchor(heading: string, seen?: Map<string, number>): string {
  // Code spans keep their text as it is; elsewhere link syntax, inline HTML and emphasis markers go.
  const text = heading
    .split(/(`+[^`]*?`+)/)
    .map((part, i) =>
      i % 2 === 1
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/\*+/g, '')
            .replace(/(^|[^\p{L}\p{N}])_+(?=\S)/gu, '$1')
            .replace(/(?<=\S)_+(?=$|[^\p{L}\p{N}_])/gu, ''),
    )
    .join('')
    .trim();
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
  if (!seen) return base;
  const count = seen.get(base);
  seen.set(base, (count ?? -1) + 1);
  return count === undefined ? base : `${base}-${count + 1}`;
}

/** The lines of a page outside fenced code blocks, with their numbers (from 1). */
function proseLines(markdown: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
      return;
    }
    if (marker) {
      fence = marker;
      return;
    }
    out.push({ text, line: i + 1 });
  });
  return out;
}

/** The anchors a page defines: its headings' (ATX and setext) and explicit `<a id|name>` ones. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const lines = proseLines(markdown);
  lines.forEach(({ text, line }, i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(text);
    const previous = lines[i - 1];
    const setext =
      /^ {0,3}(=+|-+)[ \t]*$/.test(text) && previous && previous.line === line - 1 && /\S/.test(previous.text) && !/^\s*([|>#*+-]|\d+\.)/.test(previous.text);
    if (atx) anchors.add(githubAnchor(atx[1] ?? '', seen));
    else if (setext) anchors.add(githubAnchor(previous.text, seen));
    for (const m of text.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  });
  return anchors;
}

/** The links of a page that are not in code: inline links and images, and reference definitions. */
export function linksOf(file: string, markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/(`+)(?:(?!\1).)+?\1/g, ''); // code spans
    for (const m of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line, target: m[1] });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) links.push({ file, line, target: definition[1] });
  }
  return links;
}

/** Checks the links of the given pages (paths relative to `root`) against the repository's files. */
export function brokenLinks(root: string, pages: readonly string[]): BrokenLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string): Set<string> => {
    let anchors = anchorCache.get(path);
    if (!anchors) anchorCache.set(path, (anchors = anchorsOf(readFileSync(path, 'utf8'))));
    return anchors;
  };
  const broken: BrokenLink[] = [];
  for (const page of pages) {
    const source = join(root, page);
    for (const link of linksOf(page, readFileSync(source, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target) || link.target.startsWith('//')) continue; // another site, mailto:
      const [pathPart, fragment] = splitFragment(link.target);
      const target = pathPart === '' ? source : resolve(dirname(source), decodeURIComponent(pathPart));
      const inRepo = relative(root, target);
      if (inRepo.split(sep)[0] === '..') {
        broken.push({ ...link, reason: 'points outside the repository' });
      } else if (!existsSync(target)) {
        broken.push({ ...link, reason: `no such file: ${inRepo}` });
      } else if (fragment !== undefined) {
        if (statSync(target).isDirectory() || !target.endsWith('.md')) broken.push({ ...link, reason: 'a #fragment on something that is not a Markdown page' });
        else if (!anchorsIn(target).has(decodeURIComponent(fragment))) broken.push({ ...link, reason: `no heading #${fragment} in ${inRepo}` });
      }
    }
  }
  return broken;
}

function splitFragment(target: string): [string, string | undefined] {
  const hash = target.indexOf('#');
  return hash < 0 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}

/** A repository path a page names in code (`libs/as/src/lib/…`), outside links. */
export interface CodePath {
  file: string;
  line: number;
  path: string;
}

const CODE_PATH = /`((?:apps|libs|tools|scripts|k8s|docs)\/[^`\s<>*{}…]+?)(?::\d+)?`/g;

/**
 * The repository paths the pages name in inline code that do not exist: a page that names
 * `libs/gs/src/lib/udp` after the folder moved misleads as a broken link does. Paths with a
 * placeholder (`<name>`, `*`, `…`) are not checked.
 */
export function missingCodePaths(root: string, pages: readonly string[]): CodePath[] {
  const missing: CodePath[] = [];
  for (const page of pages) {
    readFileSync(join(root, page), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        for (const m of text.matchAll(CODE_PATH)) {
          const path = m[1].replace(/[.,;]$/, '');
          if (!existsSync(join(root, path))) missing.push({ file: page, line: i + 1, path });
        }
      });
  }
  return missing;
}
