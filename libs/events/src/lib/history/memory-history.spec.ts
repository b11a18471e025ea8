import { describeEventHistory } from './event-history.conformance';
import { MemoryEventHistory } from './memory-history';

describeEventHistory('MemoryEventHistory', async (max, retentionMs, now) => {
  const history = new MemoryEventHistory(max, retentionMs, now);
  return { history, count: async () => history.length };
});
