/**
 * Splits a byte stream of newline-delimited JSON (`POST /api/v3/events`: `{"result": event}\n`,
 * keep-alive spaces between messages) into parsed messages. Feed it chunks as they arrive.
 */
export class NdjsonSplitter {
  private buffer = '';
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array): unknown[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    return lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
  }

  /** What is left when the stream ends (a last message without its newline). */
  end(): unknown[] {
    const rest = this.buffer + this.decoder.decode();
    this.buffer = '';
    return rest.trim() === '' ? [] : [JSON.parse(rest) as unknown];
  }
}
