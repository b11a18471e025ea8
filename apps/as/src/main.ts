import { runComponentMain } from '@lorawan/component';
import { AsModule } from '@lorawan/as';

runComponentMain('as', AsModule, process.env);
