import { Stack, Tabs, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { navigate } from '../router';
import { DeviceList } from './device-list';
import { EventsView } from './events';
import { MqttView } from './mqtt';
import { PubSubsView } from './pubsub';
import { UplinksView } from './uplinks';
import { WebhooksView } from './webhooks';

/** The application's tabs: path segment, label, content. */
const TABS: ReadonlyArray<readonly [string, string, (app: string) => ReactNode]> = [
  ['devices', 'Devices', (app) => <DeviceList app={app} />],
  ['events', 'Live events', (app) => <EventsView identifiers={[{ application_ids: { application_id: app } }]} />],
  ['uplinks', 'Uplinks', (app) => <UplinksView app={app} />],
  ['webhooks', 'Webhooks', (app) => <WebhooksView app={app} />],
  ['pubsubs', 'Pub/Subs', (app) => <PubSubsView app={app} />],
  ['mqtt', 'MQTT', (app) => <MqttView app={app} />],
];

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
        {TABS.map(([value, , content]) => (
          <Tabs.Panel key={value} value={value} pt="md">
            {content(app)}
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
