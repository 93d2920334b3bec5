import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { ErrorCode, FileJobView, ResponseStyle } from '@emailverify/contracts';
import { Public } from '@emailverify/service-kit';
import type { Response } from 'express';
import { RawBody } from '../common/http/json-body.interceptor';
import { present, type Presented } from '../common/http/presenter';
import { Auth, type AuthContext, type GatewayRequest } from '../common/http/request-context';
import { Style } from '../common/http/style';
import { PerAddressLimit, RateLimitClass } from '../common/rate-limit/rate-classes';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { ApiRoute } from '../openapi/api-route';
import { DownloadQueryDto, ResultsQueryDto, StatusQueryDto } from './dto/files.dto';
import { statusDocs, uploadDocs } from './files.openapi';
import { StatusPresenter, uploadPresenter } from './files.presenter';
import { FilesService, type JobStatusView } from './files.service';

/** What a route naming a job can fail with, besides a key or rate-limit refusal. */
const JOB_ERRORS: ErrorCode[] = ['JOB_NOT_FOUND', 'SERVICE_UNAVAILABLE'];
/** Pause, resume and cancel: the job's status in reply; being POSTs, a body (if any) is read as JSON. */
const JobAction = (summary: string) =>
  ApiRoute({ summary, ok: statusDocs, errors: [...JOB_ERRORS, 'PAYLOAD_TOO_LARGE'] });

@ApiTags('file verification')
@RateLimitClass('file')
@Controller('verify/file')
export class FilesController {
  private readonly uploaded;

  constructor(
    private readonly files: FilesService,
    @Inject(GATEWAY_CONFIG) config: Readonly<GatewayConfig>,
  ) {
    this.uploaded = uploadPresenter(config.PUBLIC_BASE_URL);
  }

  @Post()
  @HttpCode(200)
  @RawBody()
  @UseInterceptors(FileInterceptor('file'))
  @ApiRoute({
    summary: 'Upload a CSV, XLSX or TXT file of addresses; creates a job (status pending)',
    ok: uploadDocs,
    errors: ['INSUFFICIENT_CREDITS', 'PAYLOAD_TOO_LARGE', 'SERVICE_UNAVAILABLE'],
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description: '.csv, .xlsx (first sheet) or .txt (one address per line)',
        },
        email_column: {
          type: 'string',
          description: 'Column holding the addresses; auto-detected when omitted',
        },
        check_smtp: { type: 'boolean', default: false },
        preserve_original: { type: 'boolean', default: true },
      },
    },
  })
  async upload(
    @Auth() auth: AuthContext,
    @UploadedFile() file: Express.Multer.File | undefined,
    @Body() fields: unknown,
  ): Promise<Presented<FileJobView>> {
    return present(this.uploaded, await this.files.create(auth, file, fields));
  }

  @Get(':jobId')
  @ApiRoute({
    summary: 'Job status; `timeout` (0-300 s) waits until the job finishes or the time is up',
    ok: statusDocs,
    errors: JOB_ERRORS,
  })
  async status(
    @Auth() auth: AuthContext,
    @Req() req: GatewayRequest,
    @Param('jobId') jobId: string,
    @Query() query: StatusQueryDto,
  ): Promise<Presented<JobStatusView>> {
    // The wait ends early when the caller goes away.
    const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
    return present(StatusPresenter, await this.files.status(auth, jobId, query.timeout ?? 0, closed));
  }

  @Get(':jobId/results')
  @ApiRoute({
    summary: 'Download results',
    description:
      'Without filters: 307 to the signed full result file (legacy style: the file itself, 200). With filters (OR): a CSV of the matching rows only.',
    replies: [
      { status: 200, description: 'CSV of the (matching) rows', csv: true },
      {
        status: 307,
        description: 'Redirect to the signed full result file (current style, no filter)',
        redirect: true,
      },
    ],
    errors: JOB_ERRORS,
  })
  async results(
    @Auth() auth: AuthContext,
    @Style() style: ResponseStyle,
    @Param('jobId') jobId: string,
    @Query() query: ResultsQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const located = await this.files.locateResults(auth, jobId);
    const filters = this.files.parseFilters(query as Record<string, unknown>);
    if (!filters && style === 'current') {
      res.redirect(307, this.files.directLink(jobId).url);
      return;
    }
    await this.files.streamResults(located, filters, res);
  }

  @Public()
  @PerAddressLimit()
  @Get(':jobId/download')
  @ApiRoute({
    summary: 'The full result file through a signed link (no API key; refused when changed or expired)',
    public: true,
    replies: [{ status: 200, description: 'The result CSV', csv: true }],
    errors: ['INVALID_REQUEST', 'DOWNLOAD_LINK_INVALID', 'JOB_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  })
  async download(
    @Param('jobId') jobId: string,
    @Query() query: DownloadQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const located = await this.files.locateSigned(jobId, query.expires, query.signature);
    await this.files.streamResults(located, undefined, res);
  }

  @Post(':jobId/pause')
  @HttpCode(200)
  @JobAction('Pause a job: no new chunks start; chunks in progress finish')
  async pause(@Auth() auth: AuthContext, @Param('jobId') jobId: string): Promise<Presented<JobStatusView>> {
    return present(StatusPresenter, await this.files.action(auth, jobId, 'pause'));
  }

  @Post(':jobId/resume')
  @HttpCode(200)
  @JobAction('Resume a paused job')
  async resume(@Auth() auth: AuthContext, @Param('jobId') jobId: string): Promise<Presented<JobStatusView>> {
    return present(StatusPresenter, await this.files.action(auth, jobId, 'resume'));
  }

  @Post(':jobId/cancel')
  @HttpCode(200)
  @JobAction('Cancel a job: what was verified is charged, the rest refunded')
  async cancel(@Auth() auth: AuthContext, @Param('jobId') jobId: string): Promise<Presented<JobStatusView>> {
    return present(StatusPresenter, await this.files.action(auth, jobId, 'cancel'));
  }
}
