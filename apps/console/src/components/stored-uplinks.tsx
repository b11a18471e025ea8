import { Alert, Button, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { loadStoredUplinks, STORAGE_PACKAGE, storageEnabled } from '../api/storage';
import { ErrorAlert, Loading, useLoad } from './common';

const LIMIT = 50;

/**
 * A device's history from the Storage Integration (its last uplinks, newest first), and a notice
 * when the integration does not store this device's messages (no `storage-integration`
 * association of the application or of the device).
 */
export function StoredUplinks({ app, dev }: { app: string; dev: string }) {
  const history = useLoad(() => loadStoredUplinks(app, dev, LIMIT), [app, dev]);
  const enabled = useLoad(() => storageEnabled(app, dev), [app, dev]);
  const reload = () => {
    history.reload();
    enabled.reload();
  };
  const uplinks = history.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={4}>History (Storage Integration)</Title>
        <Button size="xs" variant="default" onClick={reload}>
          Refresh
        </Button>
      </Group>
      {enabled.data === false && (
        <Alert color="blue" title="Storage Integration not enabled" data-testid="storage-disabled">
          <Text size="sm">
            Messages of this device are not stored: associate the <Code>{STORAGE_PACKAGE}</Code> package with the application (a default association, e.g.{' '}
            <Code>PUT /api/v3/as/applications/{app}/packages/associations/200</Code>) or with this device.
          </Text>
        </Alert>
      )}
      <ErrorAlert error={history.error} title="Stored uplinks" />
      <ErrorAlert error={enabled.error} title="Package associations" />
      {history.loading && <Loading />}
      <Table.ScrollContainer minWidth={480}>
        <Table data-testid="stored-uplinks">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Received at</Table.Th>
              <Table.Th>FPort</Table.Th>
              <Table.Th>FCnt</Table.Th>
              <Table.Th>Payload</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {uplinks.map((u, i) => (
              <Table.Tr key={`${u.received_at}${i}`}>
                <Table.Td>{u.received_at ? new Date(u.received_at).toLocaleString() : ''}</Table.Td>
                <Table.Td>{u.f_port ?? ''}</Table.Td>
                <Table.Td>{u.f_cnt ?? 0}</Table.Td>
                <Table.Td>{u.decoded_payload !== undefined ? <Code>{JSON.stringify(u.decoded_payload)}</Code> : <Code>{u.frm_payload ?? ''}</Code>}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {history.data && uplinks.length === 0 && <Text c="dimmed">No stored uplinks.</Text>}
    </Stack>
  );
}
