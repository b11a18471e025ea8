import { Transform } from 'class-transformer';
import { isStackError, type ErrorDetails } from '@lorawan/errors';
import { Str } from '../json/fields';
import { MAX_JSON_DEPTH } from '../json/depth';
import { ApplicationUp } from '../messages/application-up';
import { CreateEndDeviceRequest, SetEndDeviceRequest } from '../messages/end-device-requests';
import { UpdateApplicationRequest } from '../messages/identity';
import { SetApplicationWebhookRequest } from '../messages/webhooks';
import { StreamEventsRequest } from '../events/stream';
import { getMetadataStorage } from 'class-validator';
import * as api from '../../index';
import { decodeMessage } from './decode';

type Json = Record<string, unknown>;

/** Keys an object inherits from Object.prototype, and the two class-transformer special-cased. */
const PROTOTYPE_KEYS = ['constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'] as const;
/** Of those, the keys that match TTS's ID pattern for attribute and location keys. */
const ID_LIKE = new Set<string>(['constructor', 'prototype']);

/** `{ [key]: value }` with `key` an own property whatever its name, as JSON.parse makes it. */
const own = (key: string, value: unknown): Json => JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value)}}`) as Json;

const ids = { device_id: 'dev-1', application_ids: { application_id: 'app-1' } };
const webhookIds = { webhook_id: 'wh-1', application_ids: { application_id: 'app-1' } };

/** The error chain of a thrown `pkg/errors:validation`, outermost first, as `field: reason`. */
function validationChain(fn: () => unknown): string[] {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  if (!isStackError(thrown)) throw new Error(`expected a validation error, got ${String(thrown)}`);
  const chain: string[] = [];
  for (let d: ErrorDetails | undefined = thrown.toDetails(); d; d = d.cause) {
    expect(`${d.namespace}:${d.name}`).toBe('pkg/errors:validation');
    chain.push(`${String(d.attributes?.field)}: ${String(d.attributes?.reason)}`);
  }
  return chain;
}

/** A value nested `levels` deep: `{"a":{"a":…{}}}` (levels = 1 is `{}`). */
function nested(levels: number): Json {
  let value: Json = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('decodeMessage: map keys that are also Object.prototype names', () => {
  it.each(PROTOTYPE_KEYS)('attribute key %s: stored and written back when it matches the key pattern, else refused naming the entry', (key) => {
    const body = { end_device: { ids, attributes: own(key, 'v') } };
    if (ID_LIKE.has(key)) {
      const decoded = decodeMessage(CreateEndDeviceRequest, body);
      expect(Object.keys(decoded.end_device.attributes ?? {})).toEqual([key]);
      expect(JSON.parse(JSON.stringify(decoded)).end_device.attributes).toEqual(own(key, 'v'));
    } else {
      expect(validationChain(() => decodeMessage(CreateEndDeviceRequest, body))).toEqual([
        'end_device: embedded message failed validation',
        `attributes[${key}]: value does not match regex pattern "^[a-z0-9](?:[-]?[a-z0-9]){2,}$"`,
      ]);
    }
  });

  it.each(PROTOTYPE_KEYS)('application attribute key %s: the same rules', (key) => {
    const body = { application: { ids: { application_id: 'app-1' }, attributes: own(key, 'v') }, field_mask: { paths: ['attributes'] } };
    if (ID_LIKE.has(key)) expect(JSON.stringify(decodeMessage(UpdateApplicationRequest, body).application.attributes)).toBe(JSON.stringify(own(key, 'v')));
    else expect(validationChain(() => decodeMessage(UpdateApplicationRequest, body)).pop()).toMatch(`attributes[${key}]: value does not match`);
  });

  it.each(PROTOTYPE_KEYS)('location key %s: a decoded Location when the key matches, else refused naming the entry', (key) => {
    const body = { end_device: { ids, locations: own(key, { latitude: 1, longitude: 2 }) } };
    if (ID_LIKE.has(key)) {
      const decoded = decodeMessage(CreateEndDeviceRequest, body);
      expect(JSON.parse(JSON.stringify(decoded.end_device.locations))).toEqual(own(key, { latitude: 1, longitude: 2 }));
    } else {
      expect(validationChain(() => decodeMessage(CreateEndDeviceRequest, body)).pop()).toBe(
        `locations[${key}]: value does not match regex pattern "^[a-z0-9](?:[-]?[a-z0-9]){2,}$"`,
      );
    }
  });

  it('a location that fails names the entry and has the Location error as its cause (TTS)', () => {
    const body = { end_device: { ids, locations: { home: { latitude: 91, longitude: 2 } } } };
    expect(validationChain(() => decodeMessage(CreateEndDeviceRequest, body))).toEqual([
      'end_device: embedded message failed validation',
      'locations[home]: embedded message failed validation',
      'latitude: value must be inside range [-90, 90]',
    ]);
  });

  it('webhook headers and template fields keep every key (HTTP token names), and JSON.stringify writes them all', () => {
    const headers = Object.fromEntries(PROTOTYPE_KEYS.map((k) => [k, `h-${k}`]));
    const template_fields = Object.fromEntries(PROTOTYPE_KEYS.map((k) => [k, `t-${k}`]));
    expect(Object.keys(headers)).toEqual([...PROTOTYPE_KEYS]);
    const decoded = decodeMessage(SetApplicationWebhookRequest, { webhook: { ids: webhookIds, headers, template_fields } });
    const written = JSON.parse(JSON.stringify(decoded)) as { webhook: Json };
    expect(Object.entries(written.webhook.headers as Json)).toEqual(PROTOTYPE_KEYS.map((k) => [k, `h-${k}`]));
    expect(Object.entries(written.webhook.template_fields as Json)).toEqual(PROTOTYPE_KEYS.map((k) => [k, `t-${k}`]));
  });

  it('Struct fields (provisioning_data, decoded_payload) keep every key at every level', () => {
    const struct = Object.fromEntries(PROTOTYPE_KEYS.map((k) => [k, own(k, [own(k, 1)])]));
    const text = JSON.stringify(struct);
    expect(text.match(/__proto__/g)).toHaveLength(3);
    const device = decodeMessage(SetEndDeviceRequest, { end_device: { ids, provisioning_data: JSON.parse(text) } });
    expect(JSON.stringify(device.end_device.provisioning_data)).toBe(text);
    const up = decodeMessage(ApplicationUp, JSON.parse(`{"uplink_message":{"decoded_payload":${text}}}`));
    expect(JSON.stringify(up.uplink_message?.decoded_payload)).toBe(text);
  });

  it.each(PROTOTYPE_KEYS)('key %s where a string, a list or nothing is expected: a validation error or ignored, never a crash', (key) => {
    const value = own(key, { x: own(key, '1') });
    expect(validationChain(() => decodeMessage(CreateEndDeviceRequest, { end_device: { ids, name: value } })).pop()).toBe('name: value must be a string');
    expect(
      validationChain(() => decodeMessage(StreamEventsRequest, { identifiers: [{ application_ids: { application_id: 'app-1' } }], names: value })).pop(),
    ).toBe('names: value must be a list');
    // Unknown fields are dropped unread, with any key in them.
    expect(
      JSON.stringify(decodeMessage(CreateEndDeviceRequest, { end_device: { ids, ...own('unknown', value), ...own(key, value) }, ...own(key, value) })),
    ).toBe(JSON.stringify({ end_device: { ids } }));
    expect(
      decodeMessage(StreamEventsRequest, { identifiers: [{ application_ids: { application_id: 'app-1', ...own(key, value) } }], ...own('other', value) }),
    ).toEqual({
      identifiers: [{ application_ids: { application_id: 'app-1' } }],
    });
  });
});

describe('decodeMessage: nesting depth', () => {
  it(`accepts a message ${MAX_JSON_DEPTH} levels deep and refuses one level more, naming the top-level field`, () => {
    // The request (1), end_device (2), provisioning_data (3) and the Struct's own levels.
    const deepest = { end_device: { ids, provisioning_data: nested(MAX_JSON_DEPTH - 2) } };
    expect(decodeMessage(SetEndDeviceRequest, deepest).end_device.provisioning_data).toEqual(nested(MAX_JSON_DEPTH - 2));
    const tooDeep = { end_device: { ids, provisioning_data: nested(MAX_JSON_DEPTH - 1) } };
    expect(validationChain(() => decodeMessage(SetEndDeviceRequest, tooDeep))).toEqual([
      `end_device: value nests too deep: a message may have at most ${MAX_JSON_DEPTH} levels of objects and arrays`,
    ]);
  });

  it('refuses 10 000 levels in an unknown field, in formatters or in a list, without overflowing the stack', () => {
    const deep = nested(10_000);
    const lists = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`) as unknown;
    for (const body of [
      { end_device: { ids, unknown: deep } },
      { end_device: { ids, formatters: { up_formatter: 'FORMATTER_NONE', x: deep } } },
      { end_device: { ids, used_dev_nonces: lists } },
    ]) {
      expect(validationChain(() => decodeMessage(SetEndDeviceRequest, body))[0]).toMatch(/^end_device: value nests too deep/);
    }
  });
});

describe('decodeMessage: the decoding plan of a class', () => {
  it('follows a @Transform added after a first decode', () => {
    class Late {
      @Str() a?: string;
    }
    expect(decodeMessage(Late, { a: 'x' }).a).toBe('x');
    Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value), { toClassOnly: true })(Late.prototype, 'a');
    expect(decodeMessage(Late, { a: 'x' }).a).toBe('X');
  });
});

describe('decodeMessage: the instances', () => {
  it('are of the contract class and hold the fields the message sets, nothing else', () => {
    const request = decodeMessage(SetEndDeviceRequest, {
      end_device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, supports_join: true, unknown: 1 },
      field_mask: { paths: ['supports_join'] },
    });
    expect(request).toBeInstanceOf(SetEndDeviceRequest);
    expect(request.end_device.ids.constructor.name).toBe('EndDeviceIdentifiers');
    expect(Object.keys(request.end_device)).toEqual(['ids', 'supports_join']);
    expect(Object.keys(request.end_device.ids)).toEqual(['device_id', 'application_ids']);
  });

  it('need no constructor: no contract class has constructor logic, field initialisers or methods', () => {
    const storage = getMetadataStorage();
    const classes = Object.entries(api).filter(
      (entry): entry is [string, new () => object] =>
        typeof entry[1] === 'function' && storage.getTargetValidationMetadatas(entry[1], undefined as unknown as string, false, false, undefined).length > 0,
    );
    expect(classes.length).toBeGreaterThan(50);
    for (const [name, cls] of classes) {
      expect([name, Object.entries(new cls()).filter(([, value]) => value !== undefined)]).toEqual([name, []]);
      expect([name, Object.getOwnPropertyNames(cls.prototype)]).toEqual([name, ['constructor']]);
    }
  });
});
