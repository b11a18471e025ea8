import { Code, defineError } from '@lorawan/errors';

/** Formatter errors (TTS `pkg/messageprocessors/...` and `pkg/scripting/javascript` names). */
export const ErrScriptTimeout = defineError('pkg/scripting/javascript', 'script_timeout', 'script timeout', Code.DeadlineExceeded);
export const ErrScriptMemory = defineError('pkg/scripting/javascript', 'script_memory', 'script exceeded its memory limit', Code.ResourceExhausted);
export const ErrScriptRuntime = defineError('pkg/scripting/javascript', 'runtime', '{message}', Code.InvalidArgument);
export const ErrEntrypointNotFound = defineError(
  'pkg/messageprocessors/javascript',
  'entrypoint_not_found',
  'function `{name}` not found',
  Code.InvalidArgument,
);
export const ErrOutput = defineError('pkg/messageprocessors/javascript', 'output', 'invalid output: {reason}', Code.InvalidArgument);
export const ErrOutputErrors = defineError('pkg/messageprocessors/javascript', 'output_errors', '{errors}', Code.InvalidArgument);
export const ErrCayenneLpp = defineError('pkg/messageprocessors/cayennelpp', 'payload', 'invalid CayenneLPP payload: {reason}', Code.InvalidArgument);
export const ErrUnsupportedFormatter = defineError(
  'pkg/messageprocessors',
  'formatter_not_supported',
  'formatter `{formatter}` is not supported',
  Code.Unimplemented,
);
