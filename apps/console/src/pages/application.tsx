import { Stack, Tabs, Title } from '@mantine/core';
import { navigate } from '../router';
import { DeviceList } from './device-list';
import { EventsView } from './events';
import { MqttView } from './mqtt';
import { PubSubsView } from './pubsub';
import { UplinksView } from './uplinks';
import { WebhooksView } from './webhooks';

const TABS = [
  ['devices', 'Devices'],
  ['events', 'Live events'],
  ['uplinks', 'Uplinks'],
  ['webhooks', 'Webhooks'],
  ['pubsubs', 'Pub/Subs'],
  ['mqtt', 'MQTT'],
] as const;

export function ApplicationPage({ app, tab }: { app: string; tab: string }) {
  const base = `/applications/${encodeURIComponent(app)}`;
  return (
    <Stack>
      <Title order={2}>{app}</Title>
      <Tabs value={tab} onChange={(t) => t && navigate(`${base}/${t}`)} keepMounted={false}>
        <Tabs.List>
          {TABS.map(([value, label]) => (
            <Tabs.Tab key={value} value={value}>
              {label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="devices" pt="md">
          <DeviceList app={app} />
        </Tabs.Panel>
        <Tabs.Panel value="events" pt="md">
          <EventsView identifiers={[{ application_ids: { application_id: app } }]} />
        </Tabs.Panel>
        <Tabs.Panel value="uplinks" pt="md">
          <UplinksView app={app} />
        </Tabs.Panel>
        <Tabs.Panel value="webhooks" pt="md">
          <WebhooksView app={app} />
        </Tabs.Panel>
        <Tabs.Panel value="pubsubs" pt="md">
          <PubSubsView app={app} />
        </Tabs.Panel>
        <Tabs.Panel value="mqtt" pt="md">
          <MqttView app={app} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
