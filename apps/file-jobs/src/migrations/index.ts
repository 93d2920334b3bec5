import { FilesInit1763820000000 } from './1763820000000-files-init';
import { GreylistRetries1764120000000 } from './1764120000000-greylist-retries';

export const filesMigrations = [FilesInit1763820000000, GreylistRetries1764120000000];
