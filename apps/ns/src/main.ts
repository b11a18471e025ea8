import { runComponentMain } from '@lorawan/component';
import { NsModule } from '@lorawan/ns';

runComponentMain('ns', NsModule, process.env);
