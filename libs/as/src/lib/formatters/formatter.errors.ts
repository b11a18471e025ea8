import { Code, defineError, type StackError } from '@lorawan/errors';
import type { ScriptFailure } from './script-call';

/** Formatter errors (TTS `pkg/messageprocessors/...` and `pkg/scripting/javascript` names). */
export const ErrScriptTimeout = defineError('pkg/scripting/javascript', 'script_timeout', 'script timeout', Code.DeadlineExceeded);
export const ErrScriptMemory = defineError('pkg/scripting/javascript', 'script_memory', 'script exceeded its memory limit', Code.ResourceExhausted);
export const ErrScriptStack = defineError('pkg/scripting/javascript', 'script_stack', 'script exceeded its stack limit', Code.ResourceExhausted);
/** The run was stopped for another reason than its limits (its worker died, the AS is shutting down): TTS's name. */
export const ErrScriptInterrupt = defineError('pkg/scripting/javascript', 'script_interrupt', 'script interrupt: {reason}', Code.Aborted);
export const ErrScriptRuntime = defineError('pkg/scripting/javascript', 'runtime', '{message}', Code.InvalidArgument);
export const ErrEntrypointNotFound = defineError(
  'pkg/messageprocessors/javascript',
  'entrypoint_not_found',
  'function `{name}` not found',
  Code.InvalidArgument,
);
export const ErrOutput = defineError('pkg/messageprocessors/javascript', 'output', 'invalid output: {reason}', Code.InvalidArgument);
export const ErrOutputTooLarge = defineError(
  'pkg/messageprocessors/javascript',
  'output_too_large',
  'output larger than {max} bytes of JSON',
  Code.InvalidArgument,
);
export const ErrOutputTooDeep = defineError(
  'pkg/messageprocessors/javascript',
  'output_too_deep',
  'output nested deeper than {max} levels',
  Code.InvalidArgument,
);
export const ErrOutputErrors = defineError('pkg/messageprocessors/javascript', 'output_errors', '{errors}', Code.InvalidArgument);
export const ErrCayenneLpp = defineError('pkg/messageprocessors/cayennelpp', 'payload', 'invalid CayenneLPP payload: {reason}', Code.InvalidArgument);
export const ErrUnsupportedFormatter = defineError(
  'pkg/messageprocessors',
  'formatter_not_supported',
  'formatter `{formatter}` is not supported',
  Code.Unimplemented,
);
/** A formatter call refused because too many calls (of its application, or in all) wait for a worker. */
export const ErrFormatterBusy = defineError(
  'pkg/messageprocessors',
  'formatter_busy',
  'payload formatters busy for application `{application_id}`: {reason}',
  Code.ResourceExhausted,
);

/** Formatter calls of an application whose scripts ran into the limits too often (RunawayBudget). */
export const ErrFormatterSuspended = defineError(
  'pkg/messageprocessors',
  'formatter_suspended',
  'payload formatters of application `{application_id}` suspended for {seconds} s: its scripts ran into the limits {runaways} times within a minute',
  Code.ResourceExhausted,
);

/** The errors of a script that ran into a limit (or was stopped), as opposed to one that failed on its own (threw, returned bad output). */
const LIMIT_ERRORS = [
  ErrScriptTimeout,
  ErrScriptMemory,
  ErrScriptStack,
  ErrScriptInterrupt,
  ErrOutputTooLarge,
  ErrOutputTooDeep,
  ErrFormatterBusy,
  ErrFormatterSuspended,
];

/** Whether `err` refuses a call before it ran (`formatter_busy`, `formatter_suspended`): the caller may try again later (429). */
export function isFormatterRefusal(err: StackError): boolean {
  return ErrFormatterBusy.matches(err) || ErrFormatterSuspended.matches(err);
}

/** Whether `err` says a formatter ran into a limit of the AS: a runaway script, or one refused for lack of workers. */
export function isFormatterLimitError(err: StackError): boolean {
  return LIMIT_ERRORS.some((definition) => definition.matches(err));
}

/** The typed error of a failed run. */
export function scriptFailureError(failure: ScriptFailure, limits: { maxOutputBytes: number; maxOutputDepth: number }): StackError {
  switch (failure.kind) {
    case 'timeout':
      return ErrScriptTimeout.with();
    case 'memory':
      return ErrScriptMemory.with();
    case 'stack':
      return ErrScriptStack.with();
    case 'output_too_large':
      return ErrOutputTooLarge.with({ max: limits.maxOutputBytes });
    case 'output_too_deep':
      return ErrOutputTooDeep.with({ max: limits.maxOutputDepth });
    case 'runtime':
      return ErrScriptRuntime.with({ message: failure.message ?? 'error' });
    case 'interrupt':
      return ErrScriptInterrupt.with({ reason: failure.message ?? 'stopped' });
  }
}
