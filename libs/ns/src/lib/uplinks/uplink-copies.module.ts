import { Module } from '@nestjs/common';
import { UplinkCopies } from './uplink-copies.service';
import { UPLINK_DEDUPLICATOR_PROVIDERS } from './uplink-deduplicator.provider';

/** The copies of an uplink heard by several gateways, through any GS or NS replica: claimed once, their metadata merged (joins and data uplinks). */
@Module({
  providers: [...UPLINK_DEDUPLICATOR_PROVIDERS, UplinkCopies],
  exports: [UplinkCopies],
})
export class UplinkCopiesModule {}
