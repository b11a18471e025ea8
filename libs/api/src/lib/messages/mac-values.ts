import { plainToInstance, Transform, type ClassConstructor } from 'class-transformer';
import { EnumName } from '../json/fields';
import { Message, Required } from '../json/nested';
import { ADRAckDelayExponent, ADRAckLimitExponent, AggregatedDutyCycle, DataRateIndex, PingSlotPeriod, RxDelay } from '../enums/mac';

/**
 * The `*Value` wrapper messages of MAC settings (`PingSlotPeriodValue`, `DataRateIndexValue`, …).
 * The contract holds them as `{ value: <enum name> }`. On input both forms are accepted: the object
 * `{"value": X}`, and the bare value `X`, which is what TTS (v3.x, `thethings.json.message`
 * `wrapper: true`, `pkg/ttnpb/lorawan_json.pb.go`) writes and reads. `null` means unset.
 */
function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** A `*Value` wrapper field: bare value or `{"value": X}` in, `cls` instance out. */
export function WrappedValue(cls: () => ClassConstructor<object>): PropertyDecorator {
  // class-transformer converts the raw input with the @Type first (a bare scalar would become an
  // empty instance), so the bare form is read from the source object and wrapped here.
  const wrap = Transform(
    ({ value, obj, key }) => {
      const raw = (obj as Record<string, unknown>)[key];
      if (raw === undefined || raw === null) return undefined;
      if (typeof raw === 'object') return value;
      return plainToInstance(cls(), { value: raw });
    },
    { toClassOnly: true },
  );
  return compose(wrap, Message(cls));
}

export class PingSlotPeriodValue {
  @Required() @EnumName(PingSlotPeriod) value!: string;
}

export class DataRateIndexValue {
  @Required() @EnumName(DataRateIndex) value!: string;
}

export class RxDelayValue {
  @Required() @EnumName(RxDelay) value!: string;
}

export class AggregatedDutyCycleValue {
  @Required() @EnumName(AggregatedDutyCycle) value!: string;
}

export class ADRAckLimitExponentValue {
  @Required() @EnumName(ADRAckLimitExponent) value!: string;
}

export class ADRAckDelayExponentValue {
  @Required() @EnumName(ADRAckDelayExponent) value!: string;
}
