import { ListFrequencyPlansRequest, ListFrequencyPlansResponse } from '../messages/configuration';
import { defineRpc, type RpcDefinition } from './define-rpc';

/** The stack's configuration (TTS `Configuration`, `api/configuration_services.proto`): open to anyone, as in TTS. */
export function configurationRpcs() {
  return {
    'Configuration.ListFrequencyPlans': defineRpc({
      service: 'Configuration',
      method: 'ListFrequencyPlans',
      component: 'is',
      http: [{ verb: 'GET', path: '/configuration/frequency-plans' }],
      rights: [],
      public: true,
      request: ListFrequencyPlansRequest,
      response: ListFrequencyPlansResponse,
    }),
  } satisfies Record<string, RpcDefinition>;
}
