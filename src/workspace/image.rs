//! A file's bytes as the engine holds them from reading to publishing: whole, or, in a plan of
//! many files once a file is proven, compressed (LZ4). A thousand pre-images then wait for the
//! publish, the ledger and the diff at less than half their size (W4's PHP sources: 42%);
//! each reader unpacks one file at a time and lets it go.

use std::borrow::Cow;
use std::sync::Arc;

/// The bytes of one version of a file.
#[derive(Clone, Debug)]
pub enum Image {
    Whole(Arc<Vec<u8>>),
    Packed(Arc<Packed>),
}

/// Compressed bytes and the length they unpack to.
#[derive(Debug)]
pub struct Packed {
    len: usize,
    data: Box<[u8]>,
}

/// Below this a file is not worth packing: the saving is smaller than the allocator's slack.
const PACK_FROM: usize = 512;

impl Default for Image {
    fn default() -> Self {
        Self::Whole(Arc::default())
    }
}

impl From<Vec<u8>> for Image {
    fn from(bytes: Vec<u8>) -> Self {
        Self::Whole(Arc::new(bytes))
    }
}

impl From<Arc<Vec<u8>>> for Image {
    fn from(bytes: Arc<Vec<u8>>) -> Self {
        Self::Whole(bytes)
    }
}

impl Image {
    /// The bytes: borrowed when whole, unpacked into a buffer of their own when packed.
    pub fn get(&self) -> Cow<'_, [u8]> {
        match self {
            Self::Whole(bytes) => Cow::Borrowed(bytes.as_slice()),
            Self::Packed(packed) => Cow::Owned(packed.unpack()),
        }
    }

    /// The bytes, into `buffer` when packed (its old content replaced; a reader of many
    /// images reuses one buffer instead of leaving a freed one of each size behind).
    pub fn get_into<'a>(&'a self, buffer: &'a mut Vec<u8>) -> &'a [u8] {
        match self {
            Self::Whole(bytes) => bytes.as_slice(),
            Self::Packed(packed) => {
                packed.unpack_into(buffer);
                buffer.as_slice()
            }
        }
    }

    /// The bytes, shared when whole.
    pub fn shared(&self) -> Arc<Vec<u8>> {
        match self {
            Self::Whole(bytes) => bytes.clone(),
            Self::Packed(packed) => Arc::new(packed.unpack()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Self::Whole(bytes) => bytes.len(),
            Self::Packed(packed) => packed.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A copy whose bytes are allocated anew, by the calling thread.
    pub fn deep_copy(&self) -> Self {
        match self {
            Self::Whole(bytes) => Self::Whole(Arc::new(bytes.to_vec())),
            Self::Packed(packed) => Self::Packed(Arc::new(Packed {
                len: packed.len,
                data: packed.data.clone(),
            })),
        }
    }

    /// Compresses the bytes in place when that saves memory (a small or incompressible file
    /// stays whole). A file shared with another holder is left whole, since packing would
    /// then keep both.
    pub fn pack(&mut self) {
        let Self::Whole(bytes) = self else { return };
        if bytes.len() < PACK_FROM || Arc::strong_count(bytes) > 1 {
            return;
        }
        let data = lz4_flex::block::compress(bytes).into_boxed_slice();
        if data.len() < bytes.len() / 10 * 9 {
            let len = bytes.len();
            *self = Self::Packed(Arc::new(Packed { len, data }));
        }
    }
}

impl Packed {
    /// The bytes back. They were compressed by this process from a buffer of exactly `len`
    /// bytes and never left its memory, so they always unpack; staging checks every rebuilt
    /// image against its digest before anything is written.
    fn unpack(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.unpack_into(&mut bytes);
        bytes
    }

    fn unpack_into(&self, buffer: &mut Vec<u8>) {
        buffer.clear();
        buffer.resize(self.len, 0);
        match lz4_flex::block::decompress_into(&self.data, buffer) {
            Ok(len) if len == self.len => {}
            _ => unreachable!("an image packed in memory by this process failed to unpack"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Image;
    use proptest::prelude::*;

    proptest! {
        /// Packing never changes what a reader gets.
        #[test]
        fn a_packed_image_reads_back_byte_for_byte(
            text in "[a-z \n{};]{0,3000}",
            repeat in 1usize..8,
        ) {
            let bytes = text.repeat(repeat).into_bytes();
            let mut image = Image::from(bytes.clone());
            image.pack();
            prop_assert_eq!(image.len(), bytes.len());
            prop_assert_eq!(&image.get()[..], &bytes[..]);
            prop_assert_eq!(&image.shared()[..], &bytes[..]);
            let mut buffer = b"left over from another file".to_vec();
            prop_assert_eq!(image.get_into(&mut buffer), &bytes[..]);
        }
    }

    #[test]
    fn source_code_is_packed_and_small_or_shared_files_stay_whole() {
        let code = "fn f() {\n    return 1;\n}\n".repeat(200).into_bytes();
        let mut image = Image::from(code.clone());
        image.pack();
        assert!(matches!(image, Image::Packed(_)));
        let mut small = Image::from(b"fn f() {}\n".to_vec());
        small.pack();
        assert!(matches!(small, Image::Whole(_)));
        let shared = std::sync::Arc::new(code);
        let mut held = Image::from(shared.clone());
        held.pack();
        assert!(matches!(held, Image::Whole(_)));
    }
}
