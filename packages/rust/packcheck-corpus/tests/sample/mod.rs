pub mod gguf_q8_0;
