import { FilesInit1763820000000 } from './1763820000000-files-init';
import { FilesJobList1764390000000 } from './1764390000000-files-job-list';

export const filesMigrations = [FilesInit1763820000000, FilesJobList1764390000000];
