import { CreateEventHistory1734100000000 } from './1734100000000-create-event-history';

/** The events service's migrations (its embedded history), in order. */
export const EVENTS_MIGRATIONS = [CreateEventHistory1734100000000];
