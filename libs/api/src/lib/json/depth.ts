/**
 * The deepest nesting a request may have: the body object is level 1, each object or array inside
 * another one level more. The contract's messages nest about 10 levels (a Set request's
 * `end_device.mac_state.recent_uplinks[].settings.data_rate.lora` is 8; an ErrorDetails `cause`
 * chain in a webhook's health adds a few); 64 leaves free-form Struct fields (`decoded_payload`,
 * `provisioning_data`) some 50 levels of their own, while every recursive walk of a message
 * (JSON.stringify, structuredClone, the decoder) stays far from the stack limit, which a few
 * thousand levels exceed. The gateway refuses deeper bodies right after parsing them, and
 * `decodeMessage` refuses deeper messages from any other sender (in-process callers, NATS clients).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True if `value` nests deeper than `max` levels of objects and arrays (a scalar is level 0, `{}`
 * level 1). Iterative, so a value of any depth is measured without recursion of its own.
 */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max < 1) return true;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop() as object;
    const depth = (depths.pop() as number) + 1;
    const children: unknown[] = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth > max) return true;
      values.push(child);
      depths.push(depth);
    }
  }
  return false;
}
