import { Alert, Button, Code, CopyButton, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { createMqttKey, getMqttConnectionInfo, type CreatedApiKey } from '../api/mqtt';
import { ErrorAlert, Loading, useLoad } from '../components/common';

/** A value in code type with a button that copies it. */
function CopyCode({ value, testId }: { value: string; testId: string }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Code data-testid={testId} style={{ wordBreak: 'break-all' }}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="subtle" onClick={copy}>
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

function Row({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Table.Tr>
      <Table.Th w={200}>{label}</Table.Th>
      <Table.Td>
        <CopyCode value={value} testId={testId} />
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * The application's MQTT server connection (TTS console: Integrations → MQTT): the public
 * addresses and username the AS answers (`GetMQTTConnectionInfo`), and a new API key with the
 * traffic rights as password, shown once (the IS never answers it again).
 */
export function MqttView({ app }: { app: string }) {
  const { data, error, loading } = useLoad(() => getMqttConnectionInfo(app), [app]);
  const [key, setKey] = useState<CreatedApiKey>();
  const [keyError, setKeyError] = useState<unknown>();
  const [creating, setCreating] = useState(false);
  const generate = async () => {
    setKeyError(undefined);
    setCreating(true);
    try {
      setKey(await createMqttKey(app));
    } catch (err) {
      setKeyError(err);
    } finally {
      setCreating(false);
    }
  };
  return (
    <Stack>
      <Title order={4}>MQTT server</Title>
      <Text size="sm" c="dimmed">
        Connect an MQTT client (3.1.1 or 5) with these details: subscribe to <Code>v3/{data?.username ?? app}/devices/+/up</Code>, publish downlinks on{' '}
        <Code>
          v3/{data?.username ?? app}/devices/{'{device}'}/down/push
        </Code>
        .
      </Text>
      <ErrorAlert error={error} />
      {loading && <Loading />}
      {data && (
        <Table withTableBorder data-testid="mqtt-connection">
          <Table.Tbody>
            {data.public_address && <Row label="Public address" value={data.public_address} testId="mqtt-address" />}
            {data.public_tls_address && <Row label="Public TLS address" value={data.public_tls_address} testId="mqtt-tls-address" />}
            <Row label="Username" value={data.username ?? app} testId="mqtt-username" />
            <Table.Tr>
              <Table.Th>Password</Table.Th>
              <Table.Td>
                <Text size="sm">An API key of the application with the rights to read traffic and write downlinks.</Text>
              </Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      )}
      <Group>
        <Button onClick={() => void generate()} loading={creating}>
          Generate new API key
        </Button>
      </Group>
      <ErrorAlert error={keyError} title="The API key was not created" />
      {key && (
        <Alert color="yellow" title="New API key" data-testid="mqtt-new-key">
          <Stack gap="xs">
            <Text size="sm">Copy it now: it is shown this once and cannot be read again (ID {key.id}).</Text>
            <CopyCode value={key.key} testId="mqtt-api-key" />
            <Group>
              <Button size="xs" variant="default" onClick={() => setKey(undefined)}>
                I have copied it
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
