import { FilesInit1763820000000 } from './1763820000000-files-init';
import { FilesRetention1764400000000 } from './1764400000000-files-retention';

export const filesMigrations = [FilesInit1763820000000, FilesRetention1764400000000];
