import { Badge, Stack, Table, Text, Title } from '@mantine/core';
import { get } from '../api/client';
import { ErrorAlert, Loading, useLoad } from '../components/common';
import { StreamBadge, useEvents } from './events';

interface Gateway {
  ids: { gateway_id: string; eui?: string };
  name?: string;
  frequency_plan_id?: string;
  frequency_plan_ids?: string[];
}

const STATUS_EVENTS = ['gs.gateway.connect', 'gs.gateway.disconnect', 'gs.status.receive', 'gs.up.receive'];

/**
 * The IS's gateways with their last status: the stack has no GS connection-stats route, so the
 * status comes from the Gateway Server's events (history, then live).
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
  const { events, state } = useEvents(
    gateways.map((g) => ({ gateway_ids: { gateway_id: g.ids.gateway_id } })),
    STATUS_EVENTS,
    100,
  );
  const last = (id: string) => events.find((e) => e.identifiers?.some((i) => i.gateway_ids?.gateway_id === id));
  return (
    <>
      <StreamBadge state={state} />
      {'error' in state && <ErrorAlert error={state.error} title="Status stream" />}
      <Table.ScrollContainer minWidth={420}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Gateway</Table.Th>
              <Table.Th>EUI</Table.Th>
              <Table.Th>Frequency plans</Table.Th>
              <Table.Th>Last status</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {gateways.map((g) => {
              const e = last(g.ids.gateway_id);
              return (
                <Table.Tr key={g.ids.gateway_id}>
                  <Table.Td>{g.name || g.ids.gateway_id}</Table.Td>
                  <Table.Td>{g.ids.eui}</Table.Td>
                  <Table.Td>{(g.frequency_plan_ids ?? []).join(', ')}</Table.Td>
                  <Table.Td>
                    {e ? (
                      <Badge color={e.name === 'gs.gateway.disconnect' ? 'red' : 'green'}>
                        {e.name === 'gs.gateway.disconnect' ? 'disconnected' : 'connected'} · {new Date(e.time).toLocaleString()}
                      </Badge>
                    ) : (
                      <Badge color="gray">no status seen</Badge>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
