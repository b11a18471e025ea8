import { decodeMessage, MACSettings } from '@lorawan/api';
import type { Provider } from '@nestjs/common';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import type { NsMacSettings } from '../model';

/**
 * NS_DEFAULT_MAC_SETTINGS validated as a MACSettings message (fail fast at boot): the Network
 * Server's settings for what a device's own `mac_settings` leave unset.
 */
export function nsMacDefaults(config: Pick<StackConfig, 'ns'>): NsMacSettings {
  try {
    // The decoded message as plain JSON (wrapper fields as bare values), as a device's own settings are stored.
    return JSON.parse(JSON.stringify(decodeMessage(MACSettings, config.ns.defaultMacSettings))) as NsMacSettings;
  } catch (err) {
    throw new Error(`NS_DEFAULT_MAC_SETTINGS is not a valid MACSettings message: ${(err as Error).message}`);
  }
}

/** The validated NS_DEFAULT_MAC_SETTINGS, once per Network Server. */
export const NS_MAC_DEFAULTS = Symbol('NS_MAC_DEFAULTS');
export const nsMacDefaultsProvider: Provider = { provide: NS_MAC_DEFAULTS, inject: [STACK_CONFIG], useFactory: nsMacDefaults };
