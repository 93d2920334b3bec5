import { FilesInit1763820000000 } from './1763820000000-files-init';

export const filesMigrations = [FilesInit1763820000000];
