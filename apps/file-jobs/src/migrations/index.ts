import { FilesInit1763820000000 } from './1763820000000-files-init';
import { JobMode1764300000000 } from './1764300000000-job-mode';

export const filesMigrations = [FilesInit1763820000000, JobMode1764300000000];
