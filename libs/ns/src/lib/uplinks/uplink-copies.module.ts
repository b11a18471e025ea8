import { Module } from '@nestjs/common';
import { ApplicationUplinksModule } from '../application-uplinks/application-uplinks.module';
import { UplinkAdmission } from './uplink-admission';
import { UplinkCopies } from './uplink-copies.service';
import { UPLINK_DEDUPLICATOR_PROVIDERS } from './uplink-deduplicator.provider';

/**
 * The copies of an uplink heard by several gateways, through any GS or NS replica: admitted or shed
 * at the door, claimed once, their metadata merged (joins and data uplinks).
 */
@Module({
  imports: [ApplicationUplinksModule],
  providers: [...UPLINK_DEDUPLICATOR_PROVIDERS, UplinkCopies, UplinkAdmission],
  exports: [UplinkCopies, UplinkAdmission],
})
export class UplinkCopiesModule {}
