import { APPLICATION_UP_KINDS, type JsonObject } from '@lorawan/api';

interface PathTree {
  [field: string]: PathTree | true;
}

/**
 * The ApplicationUp reduced to a webhook's `field_mask` paths (relative to ApplicationUp; the
 * `up.` prefix TTS paths may carry for the oneof is dropped; `up` itself is the whole oneof, as in
 * TTS whatever kind the message is). A path keeps its whole sub-tree;
 * a message on the way to a selected field is kept (as `{}` when the field is absent). No paths:
 * the message unchanged.
 */
export function filterByFieldMask(message: JsonObject, paths: readonly string[] | undefined): JsonObject {
  if (!paths || paths.length === 0) return message;
  const tree: PathTree = {};
  for (const raw of paths) {
    if (raw === 'up') {
      for (const kind of APPLICATION_UP_KINDS) tree[kind] = true;
      continue;
    }
    const path = raw.startsWith('up.') ? raw.slice(3) : raw;
    if (path === '') continue;
    let node = tree;
    const parts = path.split('.');
    parts.forEach((part, i) => {
      if (node[part] === true) return;
      if (i === parts.length - 1) node[part] = true;
      else node = (node[part] ??= {}) as PathTree;
    });
  }
  return select(message, tree);
}

function select(value: JsonObject, tree: PathTree): JsonObject {
  const out: JsonObject = {};
  for (const [field, sub] of Object.entries(tree)) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (sub === true) out[field] = v;
    else if (typeof v === 'object' && !Array.isArray(v)) out[field] = select(v as JsonObject, sub);
  }
  return out;
}
