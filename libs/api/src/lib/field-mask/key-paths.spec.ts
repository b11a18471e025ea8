import 'reflect-metadata';
import { Str } from '../json/fields';
import { Message, Messages } from '../json/nested';
import { EndDevice } from '../messages/end-device';
import { KeyEnvelope } from '../messages/keys';
import { Right } from '../rpc/rights';
import { requiredRights, RPCS } from '../rpc/rpc-table';
import type { RpcDefinition } from '../rpc/define-rpc';
import { END_DEVICE_KEY_PATHS, KEY_PATHS } from './allowed-paths';
import { contractPaths } from './contract-paths';
import { envelopesUnder, keyPathsOf } from './key-paths';

/**
 * TTS's own lists of the key paths of each registry (`pkg/{joinserver,networkserver,
 * applicationserver}/grpc_deviceregistry.go`, v3.32), transcribed independently of our contract:
 * every one of them must be among the paths derived from the contract.
 */
const TTS_READ_KEY_PATHS = [
  'root_keys.app_key.key',
  'root_keys.nwk_key.key',
  ...['session', 'pending_session', 'mac_state.queued_join_accept', 'pending_mac_state.queued_join_accept'].flatMap((s) =>
    ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key'].map((k) => `${s}.keys.${k}.key`),
  ),
  'session.keys.app_s_key.key',
  'pending_session.keys.app_s_key.key',
  'pending_mac_state.queued_join_accept.keys.app_s_key.key',
];
const TTS_WRITE_KEY_PATHS = [
  ...TTS_READ_KEY_PATHS,
  'root_keys.root_key_id',
  'session.keys.session_key_id',
  'pending_session.keys.session_key_id',
  'pending_mac_state.queued_join_accept.keys.session_key_id',
  'pending_mac_state.queued_join_accept.keys.app_s_key.encrypted_key',
  'pending_mac_state.queued_join_accept.keys.app_s_key.kek_label',
];

describe('key paths derived from the contract', () => {
  it('cover every key path of TTS’s registries', () => {
    expect(TTS_READ_KEY_PATHS.filter((p) => !KEY_PATHS.read.includes(p))).toEqual([]);
    expect(TTS_WRITE_KEY_PATHS.filter((p) => !KEY_PATHS.write.includes(p))).toEqual([]);
  });

  it('are exactly the key and encrypted_key of every KeyEnvelope in the EndDevice tree (found by the names of the paths)', () => {
    const byName = contractPaths(EndDevice).filter((p) => /_key\.(key|encrypted_key)$/.test(p));
    expect(byName.length).toBeGreaterThanOrEqual(30);
    expect([...END_DEVICE_KEY_PATHS.material].sort()).toEqual(byName.sort());
  });

  it('find the envelopes of the join-accept queued in either MAC state', () => {
    for (const state of ['mac_state', 'pending_mac_state']) {
      for (const key of ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key', 'app_s_key']) {
        expect(END_DEVICE_KEY_PATHS.envelopes).toContain(`${state}.queued_join_accept.keys.${key}`);
      }
      expect(END_DEVICE_KEY_PATHS.references).toContain(`${state}.queued_join_accept.keys.session_key_id`);
    }
  });

  it('envelopesUnder: the envelopes a registry stores, from its stored paths', () => {
    expect(envelopesUnder(END_DEVICE_KEY_PATHS, ['root_keys', 'net_id']).sort()).toEqual(['root_keys.app_key', 'root_keys.nwk_key']);
    expect(envelopesUnder(END_DEVICE_KEY_PATHS, ['session.keys.app_s_key', 'session.keys.session_key_id'])).toEqual(['session.keys.app_s_key']);
    expect(envelopesUnder(END_DEVICE_KEY_PATHS, ['pending_mac_state'])).toHaveLength(4);
  });

  describe('a message added later is protected without any list to update', () => {
    class Vault {
      @Str() label?: string;
      @Message(() => KeyEnvelope) sealed?: KeyEnvelope;
    }
    class Holder {
      @Message(() => Vault) vault?: Vault;
      @Messages(() => Vault) vaults?: Vault[];
      @Messages(() => Holder) nested?: Holder[];
      @Str() name?: string;
    }

    it('finds key material at any depth, and repeated fields that hold it', () => {
      const paths = keyPathsOf(Holder);
      expect(paths.material).toEqual(['vault.sealed.key', 'vault.sealed.encrypted_key']);
      expect(paths.references).toEqual(['vault.sealed.kek_label']);
      expect(paths.envelopes).toEqual(['vault.sealed']);
      expect(paths.collections).toEqual(['vaults', 'nested']);
    });
  });
});

/**
 * The whole EndDevice tree against the whole RPC table: for every RPC that selects device fields
 * by a field mask, every path of the contract is asked for alone. A path that reaches key material
 * (the material itself or a parent of it; a key reference, for writes) must need the key right;
 * any other path must not.
 */
describe('no key path is reachable without the key rights, in any RPC of the table', () => {
  const TREE = contractPaths(EndDevice);
  const reaches = (path: string, keyPaths: readonly string[]) => keyPaths.some((k) => k === path || k.startsWith(`${path}.`));
  const withMask = (rpc: RpcDefinition, paths: string[]): object =>
    rpc.fieldMasksAt ? { [rpc.fieldMasksAt]: [{ field_mask: { paths } }] } : { field_mask: { paths } };
  const guarded = (Object.values(RPCS) as RpcDefinition[]).filter((rpc) =>
    (rpc.maskRights ?? []).some(
      (m) => m.rights.includes(Right.RIGHT_APPLICATION_DEVICES_READ_KEYS) || m.rights.includes(Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS),
    ),
  );
  const names = guarded.map((rpc) => rpc.name).sort();

  it('every device registry route is guarded: the IS’s, the JS’s, the NS’s, the AS’s, single and batch', () => {
    expect(names).toEqual(
      [
        'AsEndDeviceBatchRegistry.Set',
        'AsEndDeviceRegistry.Get',
        'AsEndDeviceRegistry.Set',
        'EndDeviceBatchRegistry.Get',
        'EndDeviceRegistry.Get',
        'EndDeviceRegistry.List',
        'EndDeviceRegistry.Update',
        'EndDeviceRegistrySearch.SearchEndDevices',
        'JsEndDeviceBatchRegistry.Set',
        'JsEndDeviceRegistry.Get',
        'JsEndDeviceRegistry.Set',
        'NsEndDeviceBatchRegistry.Set',
        'NsEndDeviceRegistry.Get',
        'NsEndDeviceRegistry.Set',
      ].sort(),
    );
  });

  it.each(guarded.map((rpc) => [rpc.name, rpc] as const))('%s', (_, rpc) => {
    const writes = (rpc.maskRights ?? []).some((m) => m.rights.includes(Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS));
    const right = writes ? Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS : Right.RIGHT_APPLICATION_DEVICES_READ_KEYS;
    const keyPaths = writes ? KEY_PATHS.write : KEY_PATHS.read;
    const unguarded: string[] = [];
    const overguarded: string[] = [];
    for (const path of TREE) {
      const needs = requiredRights(rpc, withMask(rpc, [path])).includes(right);
      if (reaches(path, keyPaths) && !needs) unguarded.push(path);
      if (!reaches(path, keyPaths) && needs) overguarded.push(path);
    }
    expect(unguarded).toEqual([]);
    expect(overguarded).toEqual([]);
    // A mask listing many paths with a key path among them is not a way around it.
    expect(requiredRights(rpc, withMask(rpc, ['ids', ...TREE.filter((p) => !reaches(p, keyPaths)).slice(0, 50), keyPaths[0]]))).toContain(right);
  });
});
