/** A platform event: a document change, a simulated call leg, a queue or voicemail event. */
export interface PlatformEvent {
  /** the hook type it concerns: `object`, `channel_create`, `parking`, … */
  type: string;
  /** the account the event belongs to */
  accountId: string;
  /** the payload as a webhook consumer would receive it */
  payload: Record<string, unknown>;
  /** the payload's JSON text, once something needed it (see `payloadJson`) */
  json?: string;
}

/** An event's payload as JSON, serialised once for all who send or answer it. */
export function payloadJson(event: PlatformEvent): string {
  return (event.json ??= JSON.stringify(event.payload));
}

export type Subscriber = (event: PlatformEvent) => void;

/**
 * The one event bus. Subscribers run synchronously inside the publisher's transaction, so a
 * subscriber that writes deliveries to the outbox commits together with the change itself.
 */
export class EventBus {
  private subscribers: Subscriber[] = [];

  /** Adds a subscriber; returns a function that removes it. */
  subscribe(fn: Subscriber): () => void {
    this.subscribers.push(fn);
    return () => {
      this.subscribers = this.subscribers.filter((s) => s !== fn);
    };
  }

  /** Hands the event to every subscriber, in order. */
  publish(event: PlatformEvent): void {
    for (const s of this.subscribers) s(event);
  }
}
