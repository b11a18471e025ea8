import { Badge, Stack, Table, Text } from '@mantine/core';
import { get } from '../api/client';
import { ErrorAlert, Loading, useLoad } from '../components/common';

interface Webhook {
  ids: { webhook_id: string };
  base_url?: string;
  format?: string;
  health_status?: {
    healthy?: Record<string, never>;
    unhealthy?: { failed_attempts?: string | number; last_failed_attempt_at?: string; last_failed_attempt_details?: { message?: string } };
  };
  updated_at?: string;
}

function Health({ status }: { status: Webhook['health_status'] }) {
  if (status?.healthy) return <Badge color="green">healthy</Badge>;
  if (status?.unhealthy) {
    const u = status.unhealthy;
    return (
      <Stack gap={0}>
        <Badge color="red">unhealthy: {String(u.failed_attempts ?? '?')} failed</Badge>
        <Text size="xs">{u.last_failed_attempt_details?.message}</Text>
      </Stack>
    );
  }
  return <Badge color="gray">unknown</Badge>;
}

export function WebhooksView({ app }: { app: string }) {
  const { data, error, loading } = useLoad(
    () => get<{ webhooks?: Webhook[] }>(`/as/webhooks/${encodeURIComponent(app)}`, { field_mask: 'base_url,format,health_status,updated_at' }),
    [app],
  );
  return (
    <Stack>
      <ErrorAlert error={error} />
      {loading && <Loading />}
      <Table.ScrollContainer minWidth={420}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Webhook</Table.Th>
              <Table.Th>Base URL</Table.Th>
              <Table.Th>Format</Table.Th>
              <Table.Th>Health</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(data?.webhooks ?? []).map((w) => (
              <Table.Tr key={w.ids.webhook_id}>
                <Table.Td>{w.ids.webhook_id}</Table.Td>
                <Table.Td style={{ wordBreak: 'break-all' }}>{w.base_url}</Table.Td>
                <Table.Td>{w.format}</Table.Td>
                <Table.Td>
                  <Health status={w.health_status} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {data && !data.webhooks?.length && <Text c="dimmed">No webhooks.</Text>}
    </Stack>
  );
}
