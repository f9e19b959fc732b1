/** The presets' ffmpeg arguments, as the local media engine runs them (written once in the shared domain). */
export { ffmpegArguments } from '../shared/domain/ffmpeg-arguments';
