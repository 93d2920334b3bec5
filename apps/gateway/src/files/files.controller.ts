import { Body, Controller, Inject, Param, Query, Req, Res, UploadedFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { ResponseStyle } from '@emailverify/contracts';
import type { Response } from 'express';
import { ActionRoute, ReadRoute, RemoveRoute, SignedLinkRoute, UploadRoute } from '../common/http/endpoints';
import { present } from '../common/http/presenter';
import { Auth, type AuthContext, type GatewayRequest, RequestId } from '../common/http/request-context';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { Style } from '../common/http/style';
import { RateLimitClass } from '../common/rate-limit/rate-classes';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { DownloadQueryDto, ListQueryDto, ResultsQueryDto, StatusQueryDto } from './dto/files.dto';
import { FileRoutes } from './files.openapi';
import { JobDeletedPresenter, JobListPresenter, StatusPresenter, uploadPresenter } from './files.presenter';
import { FilesService } from './files.service';
import type { StoredUpload } from './upload.storage';

/** The job named by the path. */
const JobId = () => Param('jobId');

@ApiTags('file verification')
@RateLimitClass('file')
@Controller('verify/file')
export class FilesController {
  private readonly uploaded;

  constructor(
    private readonly files: FilesService,
    private readonly idempotency: IdempotencyService,
    @Inject(GATEWAY_CONFIG) config: Readonly<GatewayConfig>,
  ) {
    this.uploaded = uploadPresenter(config.PUBLIC_BASE_URL);
  }

  @UploadRoute('/', FileRoutes.upload)
  async upload(
    @Auth() auth: AuthContext,
    @Req() req: GatewayRequest,
    @UploadedFile() file: (Express.Multer.File & Partial<StoredUpload>) | undefined,
    @Body() fields: unknown,
  ) {
    // The file's digest is known only now: a repeat of a finished upload is answered here, its file unstored.
    this.idempotency.checkUpload(req, file, fields);
    return present(this.uploaded, await this.files.create(auth, file, fields));
  }

  @ReadRoute('/', FileRoutes.list)
  async list(@Auth() auth: AuthContext, @Query() query: ListQueryDto) {
    return present(JobListPresenter, await this.files.list(auth, query));
  }

  @ReadRoute(':jobId', FileRoutes.status)
  async status(
    @Auth() auth: AuthContext,
    @Req() req: GatewayRequest,
    @JobId() jobId: string,
    @Query() query: StatusQueryDto,
  ) {
    // The wait ends early when the caller goes away.
    const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
    return present(StatusPresenter, await this.files.status(auth, jobId, query.timeout ?? 0, closed));
  }

  @RemoveRoute(':jobId', FileRoutes.remove)
  async remove(@Auth() auth: AuthContext, @JobId() jobId: string) {
    return present(JobDeletedPresenter, await this.files.remove(auth, jobId));
  }

  @ReadRoute(':jobId/results', FileRoutes.results)
  async results(
    @Auth() auth: AuthContext,
    @Style() style: ResponseStyle,
    @JobId() jobId: string,
    @Query() query: ResultsQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const located = await this.files.locateResults(auth, jobId, query.partial);
    const filters = this.files.parseFilters(query as Record<string, unknown>);
    // Partial results are a copy made for this request: streamed, never a link to keep.
    if (!filters && style === 'current' && !located.temporary) {
      res.redirect(307, this.files.directLink(jobId).url);
      return;
    }
    await this.files.streamResults(located, filters, res);
  }

  @SignedLinkRoute(':jobId/download', FileRoutes.download)
  async download(
    @JobId() jobId: string,
    @Query() query: DownloadQueryDto,
    @RequestId() requestId: string,
    @Res() res: Response,
  ): Promise<void> {
    const located = await this.files.locateSigned(jobId, query.expires, query.signature, requestId);
    await this.files.streamResults(located, undefined, res);
  }

  @ActionRoute(
    ':jobId/pause',
    FileRoutes.action('pauseFileJob', 'Pause a job: no new chunks start; chunks in progress finish'),
  )
  async pause(@Auth() auth: AuthContext, @JobId() jobId: string) {
    return present(StatusPresenter, await this.files.action(auth, jobId, 'pause'));
  }

  @ActionRoute(':jobId/resume', FileRoutes.action('resumeFileJob', 'Resume a paused job'))
  async resume(@Auth() auth: AuthContext, @JobId() jobId: string) {
    return present(StatusPresenter, await this.files.action(auth, jobId, 'resume'));
  }

  @ActionRoute(
    ':jobId/cancel',
    FileRoutes.action('cancelFileJob', 'Cancel a job: what was verified is charged, the rest refunded'),
  )
  async cancel(@Auth() auth: AuthContext, @JobId() jobId: string) {
    return present(StatusPresenter, await this.files.action(auth, jobId, 'cancel'));
  }
}
