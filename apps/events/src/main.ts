import { runComponentMain } from '@lorawan/component';
import { EventsModule } from '@lorawan/events';

runComponentMain('events', EventsModule, process.env);
