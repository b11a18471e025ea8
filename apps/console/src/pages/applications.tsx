import { Button, Group, Modal, Stack, Table, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type FormEvent, useState } from 'react';
import { api, get } from '../api/client';
import { ErrorAlert, Link, Loading, useLoad } from '../components/common';

interface Application {
  ids: { application_id: string };
  name?: string;
  description?: string;
  created_at?: string;
}

interface AuthInfo {
  api_key?: { entity_ids?: { user_ids?: { user_id: string }; organization_ids?: { organization_id: string } } };
}

/** The collaborator a new application is created under: the key's user or organization. */
async function owner(): Promise<string> {
  const info = await get<AuthInfo>('/auth_info');
  const ids = info.api_key?.entity_ids;
  if (ids?.user_ids) return `/users/${encodeURIComponent(ids.user_ids.user_id)}/applications`;
  if (ids?.organization_ids) return `/organizations/${encodeURIComponent(ids.organization_ids.organization_id)}/applications`;
  throw new Error('this API key belongs to no user or organization: it cannot create applications');
}

function CreateApplication({ onCreated }: { onCreated: () => void }) {
  const [opened, { open, close }] = useDisclosure();
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await api('POST', await owner(), { body: { application: { ids: { application_id: id }, name } } });
      close();
      setId('');
      setName('');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <Button onClick={open}>Create application</Button>
      <Modal opened={opened} onClose={close} title="Create application">
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <TextInput label="Application ID" value={id} onChange={(e) => setId(e.currentTarget.value)} required placeholder="my-app" />
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <ErrorAlert error={error} />
            <Button type="submit">Create</Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

export function ApplicationsPage() {
  const { data, error, loading, reload } = useLoad(
    () => get<{ applications?: Application[] }>('/applications', { field_mask: 'name,description,created_at', order: 'application_id', limit: 1000 }),
    [],
  );
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Applications</Title>
        <CreateApplication onCreated={reload} />
      </Group>
      <ErrorAlert error={error} />
      {loading && <Loading />}
      <Table.ScrollContainer minWidth={400}>
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>ID</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(data?.applications ?? []).map((a) => (
              <Table.Tr key={a.ids.application_id}>
                <Table.Td>
                  <Link to={`/applications/${encodeURIComponent(a.ids.application_id)}`}>{a.ids.application_id}</Link>
                </Table.Td>
                <Table.Td>{a.name}</Table.Td>
                <Table.Td>{a.created_at ? new Date(a.created_at).toLocaleString() : ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
