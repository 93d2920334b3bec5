import { FilesInit1763820000000 } from './1763820000000-files-init';
import { ChunkStorage1763900000000 } from './1763900000000-chunk-storage';
import { OpenChunksIndex1764000000000 } from './1764000000000-open-chunks-index';
import { EventOutbox1764100000000 } from './1764100000000-event-outbox';

export const filesMigrations = [
  FilesInit1763820000000,
  ChunkStorage1763900000000,
  OpenChunksIndex1764000000000,
  EventOutbox1764100000000,
];
