import { setFlagsFromString } from 'node:v8';
import { eventDefinitions } from '@lorawan/api';
import { ErrInvalidRegexp, ErrNoMatchingEvents, ErrUnknownEventName } from './errors';

/**
 * The event names a stream's `names` filter selects (TTS `NamesFromPatterns`): each entry is an
 * exact defined name, or a regular expression between slashes matched (unanchored) against every
 * defined name. Returns the selected names sorted, or undefined when there is no filter (all names).
 * Throws `unknown_event_name`, `invalid_regexp` or `no_matching_events` (400) as TTS.
 */
export function resolveNames(patterns: readonly string[] | undefined, defined: Iterable<string> = eventDefinitions().keys()): string[] | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  const known = defined instanceof Set ? (defined as Set<string>) : new Set(defined);
  const out = new Set<string>();
  for (const pattern of patterns) {
    if (pattern.startsWith('/') && pattern.endsWith('/')) {
      const source = pattern.replace(/^\/+|\/+$/g, '');
      const re = compilePattern(source);
      let found = false;
      for (const name of known) {
        if (re.test(name)) {
          out.add(name);
          found = true;
        }
      }
      if (!found) throw ErrNoMatchingEvents.with({ regexp: source });
    } else {
      if (!known.has(pattern)) throw ErrUnknownEventName.with({ name: pattern });
      out.add(pattern);
    }
  }
  return [...out].sort();
}

/**
 * TTS compiles Go RE2 expressions, which run in linear time. JavaScript's engine backtracks, so a
 * caller's pattern like `/^(.|.)*x$/` could block the replica: patterns are compiled with V8's
 * linear-time engine (flag `l`), which, like RE2, refuses backreferences and lookaround. Where that
 * engine is not available the ordinary one is used (patterns are at most 200 characters, names short).
 */
function compilePattern(source: string): RegExp {
  try {
    return new RegExp(source, linearEngine() ? LINEAR : '');
  } catch {
    throw ErrInvalidRegexp.with();
  }
}

/** V8's flag for its linear-time (non-backtracking) engine. */
const LINEAR = 'l';
let linear: boolean | undefined;

function linearEngine(): boolean {
  if (linear !== undefined) return linear;
  linear = supportsLinear();
  if (!linear) {
    try {
      // Only enables the `l` flag for RegExps created from now on; changes nothing else.
      setFlagsFromString('--enable-experimental-regexp-engine');
    } catch {
      // not settable: the ordinary engine it is
    }
    linear = supportsLinear();
  }
  return linear;
}

function supportsLinear(): boolean {
  try {
    new RegExp('a', LINEAR);
    return true;
  } catch {
    return false;
  }
}
