import { Badge, Stack, Table, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { get } from '../api/client';
import { connectionStats, dutyCycleUse, durationMs } from '../api/gateway-stats';
import { ErrorAlert, Loading, useLoad } from '../components/common';

interface Gateway {
  ids: { gateway_id: string; eui?: string };
  name?: string;
  frequency_plan_id?: string;
  frequency_plan_ids?: string[];
}

/** How often the connection stats are asked again. */
const POLL_MS = 5000;

/**
 * The IS's gateways with their connection to the Gateway Server: the GS's connection stats
 * (`POST /gs/gateways/connection/stats`, polled every 5 s): protocol and since when, uplinks and
 * downlinks, the median round trip, the busiest sub-band's share of its duty cycle.
 */
export function GatewaysPage() {
  const { data, error, loading } = useLoad(() => get<{ gateways?: Gateway[] }>('/gateways', { field_mask: 'name,frequency_plan_ids', limit: 1000 }), []);
  const gateways = data?.gateways ?? [];
  return (
    <Stack>
      <Title order={2}>Gateways</Title>
      <ErrorAlert error={error} />
      {loading && <Loading />}
      {gateways.length > 0 && <GatewayTable gateways={gateways} />}
      {data && gateways.length === 0 && <Text c="dimmed">No gateways.</Text>}
    </Stack>
  );
}

function GatewayTable({ gateways }: { gateways: Gateway[] }) {
  const ids = gateways.map((g) => g.ids.gateway_id);
  const stats = useLoad(() => connectionStats(ids), [ids.join(',')]);
  const { reload } = stats;
  useEffect(() => {
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const entries = stats.data ?? {};
  return (
    <>
      {stats.error !== undefined && <ErrorAlert error={stats.error} title="Connection stats" />}
      <Table.ScrollContainer minWidth={640}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Gateway</Table.Th>
              <Table.Th>EUI</Table.Th>
              <Table.Th>Frequency plans</Table.Th>
              <Table.Th>Connection</Table.Th>
              <Table.Th>Uplinks</Table.Th>
              <Table.Th>Downlinks</Table.Th>
              <Table.Th>Round trip</Table.Th>
              <Table.Th>Duty cycle</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {gateways.map((g) => {
              const s = entries[g.ids.gateway_id];
              const use = s && dutyCycleUse(s);
              return (
                <Table.Tr key={g.ids.gateway_id} data-testid={`gateway-${g.ids.gateway_id}`}>
                  <Table.Td>{g.name || g.ids.gateway_id}</Table.Td>
                  <Table.Td>{g.ids.eui}</Table.Td>
                  <Table.Td>{(g.frequency_plan_ids ?? []).join(', ')}</Table.Td>
                  <Table.Td>
                    {s ? (
                      <Badge color="green">
                        {s.protocol} · since {s.connected_at ? new Date(s.connected_at).toLocaleString() : '?'}
                      </Badge>
                    ) : (
                      <Badge color={stats.data ? 'red' : 'gray'}>{stats.data ? 'not connected' : '…'}</Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <span data-testid="uplink-count">{s?.uplink_count ?? ''}</span>
                    {s?.last_uplink_received_at && (
                      <Text size="xs" c="dimmed">
                        {new Date(s.last_uplink_received_at).toLocaleTimeString()}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{s?.downlink_count ?? ''}</Table.Td>
                  <Table.Td>{s?.round_trip_times ? `${durationMs(s.round_trip_times.median)} ms` : ''}</Table.Td>
                  <Table.Td>{use !== undefined ? `${(use * 100).toFixed(1)} %` : ''}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
