import { decodeMessage } from '../validation/decode';
import { CreateApplicationAPIKeyRequest } from './identity';

describe('API key requests', () => {
  const reasonOf = (body: unknown): string => {
    try {
      decodeMessage(CreateApplicationAPIKeyRequest, body);
    } catch (err) {
      return JSON.stringify((err as { toDetails(): unknown }).toDetails());
    }
    return 'accepted';
  };

  it('names an unknown right as such, not as a malformed list', () => {
    const reason = reasonOf({ application_ids: { application_id: 'app1' }, rights: ['RIGHT_NOPE'] });
    expect(reason).toContain('defined Right values');
    expect(reason).not.toContain('must be a list');
  });

  it('refuses an empty list and a non-list', () => {
    expect(reasonOf({ application_ids: { application_id: 'app1' }, rights: [] })).toContain('at least 1 item');
    expect(reasonOf({ application_ids: { application_id: 'app1' }, rights: 'RIGHT_ALL' })).toContain('must be a list');
    expect(reasonOf({ application_ids: { application_id: 'app1' }, rights: ['RIGHT_APPLICATION_INFO'] })).toBe('accepted');
  });
});
