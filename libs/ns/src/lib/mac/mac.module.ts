import { Module } from '@nestjs/common';
import { NS_MAC_DEFAULTS, nsMacDefaultsProvider } from './mac-defaults';

/**
 * The MAC layer's configuration: the NS's default MAC settings (NS_DEFAULT_MAC_SETTINGS, validated
 * at boot). The MAC layer itself is pure functions (`commands/`, `uplink-mac.ts`,
 * `downlink-commands.ts`) the uplink and downlink services call.
 */
@Module({
  providers: [nsMacDefaultsProvider],
  exports: [NS_MAC_DEFAULTS],
})
export class NsMacModule {}
