/**
 * The documentation of a configuration setting, kept on the schema itself (`Environment`), so that
 * the configuration reference (`docs/configuration.md`, written by `npm run docs:config`) is
 * generated from what the stack validates and cannot drift from it.
 */

/** The sections of the configuration reference. */
export type SettingGroup =
  | 'process'
  | 'transport'
  | 'database'
  | 'gateway'
  | 'identity'
  | 'events'
  | 'keys'
  | 'gs'
  | 'ns'
  | 'as'
  | 'webhooks'
  | 'storage'
  | 'pubsub'
  | 'mqtt'
  | 'formatters';

/** The sections' titles, in the order the page lists them. */
export const SETTING_GROUPS: ReadonlyArray<{ group: SettingGroup; title: string }> = [
  { group: 'process', title: 'Processes, logs and shutdown' },
  { group: 'transport', title: 'Transport (NATS)' },
  { group: 'database', title: 'Databases and embedded data' },
  { group: 'gateway', title: 'HTTP API and its edge (gateway)' },
  { group: 'identity', title: 'Identity Server' },
  { group: 'events', title: 'Events' },
  { group: 'keys', title: 'Keys at rest and device defaults' },
  { group: 'gs', title: 'Gateway Server' },
  { group: 'ns', title: 'Network Server' },
  { group: 'as', title: 'Application Server' },
  { group: 'webhooks', title: 'Application Server: webhooks' },
  { group: 'storage', title: 'Application Server: Storage Integration' },
  { group: 'pubsub', title: 'Application Server: Pub/Sub integrations' },
  { group: 'mqtt', title: 'Application Server: MQTT server' },
  { group: 'formatters', title: 'Application Server: payload formatters' },
];

export interface SettingDoc {
  /** The section of the reference it is listed in. */
  group: SettingGroup;
  /** One paragraph of Markdown: what it does, its unit, what 0 or unset means. */
  description: string;
  /**
   * The default as people read it, only for a setting whose property has no initializer (the
   * initializer is the default otherwise, and the reference prints it); without it: unset.
   */
  default?: string;
}

const docs = new WeakMap<object, Map<string, SettingDoc>>();

/** Documents one setting of a configuration schema: `@Setting('gs', 'The UDP port …')`. */
export function Setting(group: SettingGroup, description: string, options: { default?: string } = {}): PropertyDecorator {
  return (prototype, property) => {
    const own = docs.get(prototype) ?? new Map<string, SettingDoc>();
    own.set(String(property), { group, description, ...options });
    docs.set(prototype, own);
  };
}

/** The documented settings of a schema class, in declaration order. */
export function settingDocs(schema: abstract new () => unknown): ReadonlyMap<string, SettingDoc> {
  return docs.get(schema.prototype as object) ?? new Map();
}
