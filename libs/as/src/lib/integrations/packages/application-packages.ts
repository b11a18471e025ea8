import type { ApplicationPackage } from '@lorawan/api';

/** The Storage Integration's package (TTS's name and default FPort; the FPort of its associations is not used). */
export const STORAGE_PACKAGE = 'storage-integration';

/** The packages this AS offers (TTS `ApplicationPackageRegistry.List`). */
export const APPLICATION_PACKAGES: readonly ApplicationPackage[] = Object.freeze([{ name: STORAGE_PACKAGE, default_f_port: 200 }]);

export function isKnownPackage(name: string): boolean {
  return APPLICATION_PACKAGES.some((p) => p.name === name);
}
