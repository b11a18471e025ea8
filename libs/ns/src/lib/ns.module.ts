import { Module } from '@nestjs/common';
import { endDeviceRegistryController, registryProviders } from '@lorawan/registry';
import { ApplicationUplinks } from './application-uplinks.service';
import { DataDownlinkService } from './downlinks/data-downlink.service';
import { AsNsController } from './downlinks/downlink-queue.controller';
import { NsDownlinkQueue } from './downlinks/downlink-queue.service';
import { GatewayDownlinks } from './downlinks/gateway-downlinks.service';
import { TxAcknowledgments } from './downlinks/tx-acknowledgments.service';
import { nsRegistryPolicy } from './end-devices/ns-registry.policy';
import { JoinRequestService } from './joins/join-request.service';
import { nsMacDefaults, nsMacDefaultsProvider } from './mac/mac-defaults';
import { NS_MIGRATIONS } from './migrations';
import { DataUplinkService } from './uplinks/data-uplink.service';
import { UplinkCopies } from './uplinks/uplink-copies.service';
import { UPLINK_DEDUPLICATOR_PROVIDERS } from './uplinks/uplink-deduplicator.provider';
import { UplinkService } from './uplinks/uplink.service';
import { UplinksController } from './uplinks/uplinks.controller';

/**
 * The Network Server: MAC settings and state, network session keys (NsEndDeviceRegistry), and
 * the data plane's uplinks from the Gateway Servers (`GsNs.HandleUplink`: join-requests, through
 * the JS to a join-accept sent by the best gateway).
 */
@Module({
  controllers: [endDeviceRegistryController('NsEndDeviceRegistry'), UplinksController, AsNsController],
  providers: [
    ...registryProviders('ns', NS_MIGRATIONS, (config) => nsRegistryPolicy(nsMacDefaults(config))),
    ...UPLINK_DEDUPLICATOR_PROVIDERS,
    nsMacDefaultsProvider,
    ApplicationUplinks,
    GatewayDownlinks,
    NsDownlinkQueue,
    DataDownlinkService,
    TxAcknowledgments,
    UplinkCopies,
    JoinRequestService,
    DataUplinkService,
    UplinkService,
  ],
})
export class NsModule {}
