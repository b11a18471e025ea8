import { runComponentMain } from '@lorawan/component';
import { JsModule } from '@lorawan/js';

runComponentMain('js', JsModule, process.env);
