import { FilesInit1763820000000 } from './1763820000000-files-init';
import { ChunkStorage1763900000000 } from './1763900000000-chunk-storage';

export const filesMigrations = [FilesInit1763820000000, ChunkStorage1763900000000];
