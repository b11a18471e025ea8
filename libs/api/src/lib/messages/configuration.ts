import { Str, Uint32 } from '../json/fields';
import { Messages } from '../json/nested';

/**
 * TTS `Configuration.ListFrequencyPlans` (`api/configuration_services.proto`): the frequency plans
 * the stack knows, by base frequency (MHz: 433, 470, 868, 915) and band when the request names them.
 */
export class ListFrequencyPlansRequest {
  @Uint32() base_frequency?: number;
  @Str({ maxLength: 64 }) band_id?: string;
}

/** `ttn.lorawan.v3.FrequencyPlanDescription`. */
export class FrequencyPlanDescription {
  @Str({ maxLength: 64 }) id?: string;
  /** The plan this one extends. */
  @Str({ maxLength: 64 }) base_id?: string;
  @Str() name?: string;
  @Uint32() base_frequency?: number;
  @Str({ maxLength: 64 }) band_id?: string;
}

export class ListFrequencyPlansResponse {
  @Messages(() => FrequencyPlanDescription) frequency_plans?: FrequencyPlanDescription[];
}
