import { ConcentratorQueue, txpkAirtimeUs } from './concentrator';

const frame = (o: Record<string, unknown>) => ({ modu: 'LORA', datr: 'SF7BW125', codr: '4/5', size: 13, ...o });

describe('ConcentratorQueue (a packet forwarder’s JIT queue)', () => {
  it('computes Semtech’s time on air: 13 bytes at SF7 46.336 ms, at SF12 (low data rate optimisation) 1155.072 ms; no CRC on downlinks', () => {
    expect(txpkAirtimeUs(frame({}))).toBe(46_336);
    expect(txpkAirtimeUs(frame({ datr: 'SF12BW125' }))).toBe(1_155_072);
    expect(txpkAirtimeUs(frame({ ncrc: true }))).toBe(41_216);
    // FSK 50 kbit/s: (5 + 3 + 1 + 13 + 2) bytes.
    expect(txpkAirtimeUs({ modu: 'FSK', datr: 50_000, size: 13 })).toBe(3_840);
  });

  it('refuses a packet too close to now, one too far ahead, and one overlapping a queued one (with the JIT margins)', () => {
    const queue = new ConcentratorQueue();
    const now = 2 ** 32 - 100_000;
    expect(queue.enqueue(frame({ tmst: (now + 32_000) >>> 0 }), now)).toBe('TOO_LATE');
    expect(queue.enqueue(frame({ tmst: (now + 400_000_000) >>> 0 }), now)).toBe('TOO_EARLY');
    // Across the counter's rollover.
    const at = (now + 1_000_000) >>> 0;
    expect(queue.enqueue(frame({ tmst: at }), now)).toBe('NONE');
    expect(queue.enqueue(frame({ tmst: (at + 46_336 + 32_500) >>> 0 }), now)).toBe('COLLISION_PACKET');
    expect(queue.enqueue(frame({ tmst: (at + 46_336 + 32_501) >>> 0 }), now)).toBe('NONE');
    expect(queue.enqueue(frame({ tmst: (at - 46_336 - 32_500) >>> 0 }), now)).toBe('COLLISION_PACKET');
    // An immediate packet goes a second from now at the soonest, after what is queued.
    expect(queue.enqueue(frame({ imme: true }), now)).toBe('NONE');
    expect(queue.queued.at(-1)?.count_us).toBeGreaterThan((at + 46_336 + 32_501) >>> 0);
  });

  it('refuses a packet outside its radio’s TX range (TX_FREQ) before queueing it, whatever its time', () => {
    // A radio that transmits 863–865 MHz only (tx_freq_min/tx_freq_max).
    const queue = new ConcentratorQueue({ tx_freq_min: 863_000_000, tx_freq_max: 865_000_000 });
    const now = 5_000_000;
    expect(queue.enqueue(frame({ freq: 868.1, tmst: now + 1_000_000 }), now)).toBe('TX_FREQ');
    expect(queue.enqueue(frame({ freq: 869.525, tmst: now + 2_000 }), now)).toBe('TX_FREQ');
    expect(queue.queued).toEqual([]);
    expect(queue.enqueue(frame({ freq: 864.9, tmst: now + 1_000_000 }), now)).toBe('NONE');
    expect(queue.enqueue(frame({ freq: 865, tmst: now + 2_000 }), now)).toBe('TOO_LATE');
  });
});
