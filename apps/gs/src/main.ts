import { runComponentMain } from '@lorawan/component';
import { GsModule } from '@lorawan/gs';

runComponentMain('gs', GsModule, process.env);
