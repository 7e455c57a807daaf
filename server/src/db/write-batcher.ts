import DataLoader from 'dataloader'

/** Writes of one batch beyond this go in the next statement (parameter arrays stay small). */
const MAX_BATCH_SIZE = 500

/**
 * Turns a write made once per item (a call answered, a call closed) into one statement (or
 * transaction) per batch of items: each `write(item)` resolves with its own result, or rejects
 * with the batch's error. A batch leaves at the next setImmediate, so everything that arrives in
 * one turn of the event loop (the answers of many sockets, say) joins it, and never while this
 * batcher's previous batch is still running: what arrives meanwhile goes together in the next
 * one. The database runs one statement for many items instead of one each; on the embedded
 * PGlite, where statements run one at a time in this process, that is most of the cost.
 *
 * `run` answers one result per item, in order (an Error for an item that failed alone).
 */
export const createWriteBatcher = <Item, Result>(
  run: (items: readonly Item[]) => Promise<ReadonlyArray<Result | Error>>,
): ((item: Item) => Promise<Result>) => {
  let running: Promise<unknown> = Promise.resolve()
  const loader = new DataLoader<Item, Result, Item>(
    (items) => {
      const batch = run(items)
      running = batch.catch(() => undefined)
      return batch
    },
    {
      cache: false,
      maxBatchSize: MAX_BATCH_SIZE,
      batchScheduleFn: (dispatch) => {
        void running.then(() => setImmediate(dispatch))
      },
    },
  )
  return (item) => loader.load(item)
}
