import { healthSubject, jetStreamNames, natsPermissions, RPCS, rpcCaller } from '@lorawan/api';
import { webhookStreamName } from '@lorawan/as';
import { eventStreamConfig } from '@lorawan/events';
import { dedupBucketName } from '@lorawan/ns';
import { natsConfigFiles } from './nats-config';

describe('nats-config', () => {
  const permissions = natsPermissions('tp');

  it('names the streams as the components make them', () => {
    for (const prefix of [undefined, 'tp']) {
      const names = jetStreamNames(prefix);
      expect(names.events?.streams).toEqual([eventStreamConfig(prefix, 1000, 1 << 20).name]);
      expect(names.as?.streams).toEqual([webhookStreamName(prefix)]);
      expect(names.ns?.kvBuckets).toEqual([dedupBucketName(prefix)]);
      expect(names.ns?.streams).toEqual([`KV_${dedupBucketName(prefix)}`]);
    }
  });

  it('lets only the gateway publish the requests of the HTTP API', () => {
    const create = `tp.${RPCS['ApplicationRegistry.Create'].subject}`;
    expect(permissions.gateway.publish).toContain(create);
    for (const principal of ['is', 'js', 'ns', 'as', 'events', 'gs'] as const) expect(permissions[principal].publish).not.toContain(create);
    expect(permissions.gateway.publish).toContain(`tp.${healthSubject('ns')}`);
  });

  it('lets each component call the data-plane RPCs it is named the caller of, and serve its own', () => {
    expect(rpcCaller(RPCS['NsJs.HandleJoin'])).toBe('ns');
    expect(rpcCaller(RPCS['GsNs.HandleUplink'])).toBe('gs');
    expect(permissions.ns.publish).toContain(`tp.${RPCS['NsJs.HandleJoin'].subject}`);
    expect(permissions.ns.publish).toContain(`tp.${RPCS['NsGs.ScheduleDownlink'].subject}.*`);
    expect(permissions.as.publish).not.toContain(`tp.${RPCS['NsJs.HandleJoin'].subject}`);
    expect(permissions.as.subscribe).toEqual(expect.arrayContaining(['tp.rpc.as.>', '_INBOX_as.>']));
    expect(permissions.as.subscribe).not.toContain('tp.rpc.is.>');
    expect(permissions.as.publish.filter((s) => s.startsWith('$JS.API.STREAM.'))).toEqual(expect.arrayContaining([`$JS.API.STREAM.INFO.WEBHOOKS_tp`]));
    expect(permissions.as.publish.some((s) => s.includes('EVENTS_tp'))).toBe(false);
  });

  it('writes one user per principal with its password', () => {
    const files = natsConfigFiles('tp', { is: 'secret-is' });
    expect(files.passwords.is).toBe('secret-is');
    const authorization = JSON.parse(files.config.slice(files.config.indexOf('{'))) as { users: Array<{ user: string; password: string }> };
    expect(authorization.users.map((u) => u.user)).toEqual(['is', 'js', 'ns', 'as', 'events', 'gs', 'gateway']);
    expect(files.env.gateway).toBe(`NATS_USER=gateway\nNATS_PASSWORD=${files.passwords.gateway}\n`);
  });
});
