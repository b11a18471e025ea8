import { getMetadataStorage } from 'class-validator';
// class-transformer keeps @Type metadata in this storage; it has no public accessor for it.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import type { ClassConstructor } from 'class-transformer';
import { mapItemClassOf } from './nested';

/** One field of a contract class, as the walks over the contract see it. */
export interface MessageField {
  name: string;
  /** The message class of an embedded, repeated or map field; undefined for scalars. */
  type?: ClassConstructor<object>;
  /** An embedded message (`@Message`): field masks address its fields (`a.b`); repeated and map fields are leaves. */
  embedded: boolean;
}

/** The fields of a contract class (those with validation rules, i.e. every field of the contract), in declaration order. */
export function messageFields(cls: ClassConstructor<object>): MessageField[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].map((name) => {
    const type = defaultMetadataStorage.findTypeMetadata(cls, name)?.typeFunction() ?? mapItemClassOf(cls, name);
    return {
      name,
      type: typeof type === 'function' ? (type as ClassConstructor<object>) : undefined,
      embedded: metadata.some((m) => m.propertyName === name && m.name === 'message'),
    };
  });
}
