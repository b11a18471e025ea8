import { Inject, Injectable } from '@nestjs/common';
import { ACCESS_INVALIDATION_SUBJECT, type AccessInvalidation } from '@lorawan/api';
import { encode, type PubSub, PUBSUB } from '@lorawan/transport';

/**
 * Tells every gateway replica that a credential or an entity changed (`access.invalidate`), so
 * they drop the caller identities they cached for it at once instead of after their TTL.
 * Fire and forget: a lost message only means the cache's TTL applies.
 */
@Injectable()
export class AccessInvalidator {
  constructor(@Inject(PUBSUB) private readonly pubsub: PubSub) {}

  invalidate(msg: AccessInvalidation): void {
    this.pubsub.publish(ACCESS_INVALIDATION_SUBJECT, encode(msg));
  }
}
