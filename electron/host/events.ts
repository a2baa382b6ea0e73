/**
 * The host's events (electron/common/types.ts `HostEvent`): operation progress and ends, and what
 * changed, sent to every transport that subscribed (the Electron window, each WebSocket).
 */
import type { HostEvent } from '../common/events.js';

export class EventHub {
  private readonly listeners = new Set<(event: HostEvent) => void>();

  /** Sends `event` to every listener; one that throws (a closed transport) does not stop the others. */
  emit(event: HostEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A failing listener must not stop the others or the operation that emitted.
      }
    }
  }

  /** Listens to every event; returns the function that stops listening. */
  subscribe(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
