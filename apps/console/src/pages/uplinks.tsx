import { BarChart, LineChart } from '@mantine/charts';
import { Code, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { perMinute, uplinkOf, type Uplink } from '../api/uplinks';
import { StreamBadge, useEvents } from './events';
import { ErrorAlert } from '../components/common';

const NAMES = ['as.up.data.forward'];

export function SignalChart({ uplinks }: { uplinks: Uplink[] }) {
  const data = [...uplinks].reverse().map((u) => ({ time: new Date(u.time).toLocaleTimeString(), rssi: u.rssi ?? null, snr: u.snr ?? null }));
  if (data.length === 0) return null;
  return (
    <LineChart
      h={220}
      data={data}
      dataKey="time"
      series={[
        { name: 'rssi', color: 'blue.6', label: 'RSSI (dBm)' },
        { name: 'snr', color: 'orange.6', label: 'SNR (dB)' },
      ]}
      withLegend
      connectNulls
    />
  );
}

export function UplinkTable({ uplinks }: { uplinks: Uplink[] }) {
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table data-testid="uplink-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time</Table.Th>
            <Table.Th>Device</Table.Th>
            <Table.Th>FPort / FCnt</Table.Th>
            <Table.Th>Decoded payload</Table.Th>
            <Table.Th>RSSI / SNR</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {uplinks.map((u, i) => (
            <Table.Tr key={`${u.time}${u.device_id}${i}`}>
              <Table.Td>{new Date(u.time).toLocaleTimeString()}</Table.Td>
              <Table.Td>{u.device_id}</Table.Td>
              <Table.Td>
                {u.f_port ?? ''} / {u.f_cnt ?? 0}
              </Table.Td>
              <Table.Td>{u.decoded_payload ? <Code>{JSON.stringify(u.decoded_payload)}</Code> : <Code>{u.frm_payload}</Code>}</Table.Td>
              <Table.Td>
                {u.rssi ?? '–'} / {u.snr ?? '–'}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Live uplinks of an application (`as.up.data.forward`, the last 100 from history first): decoded payloads, uplinks per minute, a device's RSSI/SNR. */
export function UplinksView({ app }: { app: string }) {
  const { events, state } = useEvents([{ application_ids: { application_id: app } }], NAMES, 100);
  const uplinks = events.map(uplinkOf).filter((u): u is Uplink => u !== undefined);
  const devices = [...new Set(uplinks.map((u) => u.device_id))].sort();
  const [device, setDevice] = useState<string | null>(null);
  const selected = device ?? devices[0] ?? null;
  return (
    <Stack>
      <Group>
        <StreamBadge state={state} />
        <Text size="sm" c="dimmed">
          {uplinks.length} uplinks
        </Text>
      </Group>
      {'error' in state && <ErrorAlert error={state.error} title="Event stream" />}
      <Title order={4}>Uplinks per minute</Title>
      {uplinks.length > 0 ? (
        <BarChart h={180} data={perMinute(uplinks)} dataKey="minute" series={[{ name: 'uplinks', color: 'teal.6' }]} />
      ) : (
        <Text c="dimmed">No uplinks yet.</Text>
      )}
      <Group align="end">
        <Title order={4}>RSSI and SNR</Title>
        <Select data={devices} value={selected} onChange={setDevice} placeholder="device" w={200} />
      </Group>
      <SignalChart uplinks={uplinks.filter((u) => u.device_id === selected)} />
      <UplinkTable uplinks={uplinks} />
    </Stack>
  );
}
