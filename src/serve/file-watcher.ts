import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface FileWatcherOptions {
  /** Quiet time after the last change event before `onChange` runs; editors write in bursts. Default 100 ms. */
  readonly debounceMs?: number;
  /** Receives what `onChange` threw or rejected with, and watcher errors. */
  readonly onError: (error: unknown) => void;
}

export interface FileWatcher {
  close(): void;
}

/**
 * Calls `onChange` after a file changes, one call at a time: a change arriving while `onChange`
 * runs schedules one more call after it, so the last write always wins. Watches the directory,
 * not the file, because editors save by writing a new file and renaming it over the old one,
 * which leaves a watch on the old file's inode silent.
 */
export function watchFile(path: string, onChange: () => Promise<void>, options: FileWatcherOptions): FileWatcher {
  const name = basename(path);
  const debounceMs = options.debounceMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let pending = false;
  let closed = false;

  const runChange = async (): Promise<void> => {
    if (closed) return;
    if (running) {
      pending = true;
      return;
    }
    running = true;
    try {
      await onChange();
    } catch (error) {
      options.onError(error);
    } finally {
      running = false;
    }
    if (pending && !closed) {
      pending = false;
      void runChange();
    }
  };

  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void runChange(), debounceMs);
  };

  const watcher: FSWatcher = watch(dirname(path), { persistent: false }, (_event, changed) => {
    // Some platforms do not say which file changed; then any change in the directory counts.
    if (changed === null || changed === name) schedule();
  });
  watcher.on('error', options.onError);
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}
