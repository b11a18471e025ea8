import { runComponentMain } from '@lorawan/component';
import { IsModule } from '@lorawan/is';

runComponentMain('is', IsModule, process.env);
