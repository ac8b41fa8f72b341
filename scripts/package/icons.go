package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"
)

// iconSizes are the hicolor theme's usual application sizes; build/appicon.png (512×512) is the source.
var iconSizes = []int{16, 24, 32, 48, 64, 128, 256, 512}

// writeIcons renders build/appicon.png at every size into dir and returns the files by size.
func writeIcons(src, dir string) (map[int]string, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if b := img.Bounds(); b.Dx() != b.Dy() || b.Dx() < iconSizes[len(iconSizes)-1] {
		return nil, fmt.Errorf("%s: need a square icon of at least %dpx, got %dx%d", src, iconSizes[len(iconSizes)-1], b.Dx(), b.Dy())
	}
	out := make(map[int]string, len(iconSizes))
	for _, n := range iconSizes {
		dst := image.NewNRGBA(image.Rect(0, 0, n, n))
		// Catmull-Rom widens its kernel when shrinking, so small sizes average the source instead of aliasing.
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
		p := filepath.Join(dir, fmt.Sprintf("icon-%d.png", n))
		if err := writePNG(p, dst); err != nil {
			return nil, err
		}
		out[n] = p
	}
	return out, nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
