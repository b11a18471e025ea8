import { Base64Bytes, EnumName, Float, Int32, Str, Uint32 } from '../json/fields';
import { Message, Required } from '../json/nested';
import { LocationSource } from '../enums/lorawan';
import { ValidateBy } from 'class-validator';

/** `ttn.lorawan.v3.Location` (TTS lorawan.proto; the seed does not show it). */
export class Location {
  @Required() @Float({ min: -90, max: 90 }) latitude!: number;
  @Required() @Float({ min: -180, max: 180 }) longitude!: number;
  @Int32() altitude?: number;
  @Uint32() accuracy?: number;
  @EnumName(LocationSource) source?: string;
}

export class PictureEmbedded {
  @Str({ maxLength: 32 }) mime_type?: string;
  @Base64Bytes(8 * 1024 * 1024) data?: string;
}

/** `ttn.lorawan.v3.Picture`: an embedded image and/or URLs by width. */
export class Picture {
  @Message(() => PictureEmbedded) embedded?: PictureEmbedded;
  @ValidateBy({
    name: 'picture_sizes',
    validator: {
      validate: (v) =>
        v === undefined ||
        (typeof v === 'object' &&
          v !== null &&
          !Array.isArray(v) &&
          Object.entries(v).every(([k, u]) => /^\d+$/.test(k) && Number(k) <= 0xffffffff && typeof u === 'string')),
      defaultMessage: () => 'value must be a map of widths (uint32) to URL strings',
    },
  })
  sizes?: Record<string, string>;
}
