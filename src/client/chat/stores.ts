/**
 * One `ChatStore` per session whose Chat shows our nodes: the browser half
 * keeps them here so every Chat column of a session shares one reading.
 */
import { ChatStore, type ChatRemote, type ChatStoreOptions } from './store.ts'

/** The stores of every session whose Chat shows our nodes, created on first use. */
export class ChatStores {
  private readonly stores = new Map<string, ChatStore>()
  private readonly remote: () => Promise<ChatRemote>
  private readonly options: ChatStoreOptions

  constructor(remote: () => Promise<ChatRemote>, options: ChatStoreOptions = {}) {
    this.remote = remote
    this.options = options
  }

  get(sessionId: string): ChatStore {
    let store = this.stores.get(sessionId)
    if (!store) {
      store = new ChatStore(this.remote, sessionId, this.options)
      this.stores.set(sessionId, store)
    }
    return store
  }

  /** The event at `seq` happened in some session's log (the Definitions cannot tell which): refresh the live ones. */
  poke(seq?: number): void {
    for (const store of this.stores.values()) void store.refreshIfLive(seq)
  }

  dispose(): void {
    for (const store of this.stores.values()) store.dispose()
    this.stores.clear()
  }
}
