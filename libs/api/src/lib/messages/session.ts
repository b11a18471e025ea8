import { DevAddr, Timestamp, Uint32 } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { SessionKeys } from './keys';
import { ApplicationDownlink } from './traffic';

/** `ttn.lorawan.v3.Session`: a LoRaWAN session (current or pending). */
export class Session {
  @DevAddr() dev_addr?: string;
  @Required() @Message(() => SessionKeys) keys!: SessionKeys;
  @Uint32() last_f_cnt_up?: number;
  @Uint32() last_n_f_cnt_down?: number;
  @Uint32() last_a_f_cnt_down?: number;
  @Uint32() last_conf_f_cnt_down?: number;
  @Timestamp() started_at?: string;
  @Messages(() => ApplicationDownlink) queued_application_downlinks?: ApplicationDownlink[];
}
